// BenchJdbc runs a bench script through pgjdbc (and junixsocket for the
// socket URL), the path a migrated Java application takes. Started once
// per bench by the JDK's source launcher (java -cp JARS BenchJdbc.java);
// uds-migrate's bench package (bench/jdbc.go) drives it over stdin/stdout.
//
// Input lines, tab-separated; B64 fields are base64 of UTF-8 text:
//   url TRANSPORT B64(URL)      user B64     password B64     conns N
//   define NAME VALUE           set NAME RPN     sql B64(SQL with ?) NAMES
//   run TRANSPORT NANOS         quit
// For each run it answers one line: "ok QUERIES ELAPSED_NS LAT_NS..." or
// "err MESSAGE". RPN tokens: n:INT, v:NAME, op:+-*/%, random.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.util.*;
import java.util.concurrent.*;

public class BenchJdbc {
    record Step(String setVar, String[] rpn, String sql, String[] params) {}

    static final Map<String, String> urls = new HashMap<>();
    static final Properties props = new Properties();
    static final List<Step> steps = new ArrayList<>();
    static final Map<String, Long> defines = new HashMap<>();
    static int conns = 1;
    static long runs = 0;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            switch (f[0]) {
                case "url" -> urls.put(f[1], b64(f[2]));
                case "user" -> props.setProperty("user", b64(f[1]));
                case "password" -> props.setProperty("password", b64(f[1]));
                case "conns" -> conns = Integer.parseInt(f[1]);
                case "define" -> defines.put(f[1], Long.parseLong(f[2]));
                case "set" -> steps.add(new Step(f[1], f[2].split(" "), null, null));
                case "sql" -> steps.add(new Step(null, null, b64(f[1]), f[2].isEmpty() ? new String[0] : f[2].split(" ")));
                case "run" -> {
                    try {
                        out.println(run(f[1], Long.parseLong(f[2])));
                    } catch (Throwable e) {
                        out.println("err " + chain(e));
                    }
                    out.flush();
                }
                case "quit" -> { return; }
                default -> throw new IllegalArgumentException("unknown command " + f[0]);
            }
        }
    }

    static String b64(String s) { return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8); }

    static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (b.length() > 0) b.append(" | caused by: ");
            b.append(c.getClass().getName()).append(": ").append(c.getMessage());
        }
        return b.toString().replace('\n', ' ').replace('\r', ' ');
    }

    // Worker is one connection with its own variables, random stream and
    // prepared statements (prepared once, as an application does).
    static final class Worker {
        final Connection conn;
        final PreparedStatement[] stmts;
        final Map<String, Long> vars = new HashMap<>(defines);
        final SplittableRandom rng;
        int pos = 0;
        long[] lat = new long[4096];
        int n = 0;
        long end;

        Worker(String transport, long seed) throws SQLException {
            conn = DriverManager.getConnection(urls.get(transport), props);
            try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery("SELECT inet_client_addr() IS NULL")) {
                rs.next();
                if (rs.getBoolean(1) != transport.equals("socket")) {
                    throw new SQLException("asked for " + transport + " but the server saw the other transport");
                }
            }
            stmts = new PreparedStatement[steps.size()];
            for (int i = 0; i < steps.size(); i++) {
                if (steps.get(i).sql != null) stmts[i] = conn.prepareStatement(steps.get(i).sql);
            }
            rng = new SplittableRandom(seed);
        }

        // next runs \set steps up to the next SQL command and runs it,
        // reading every row; it returns the query's round trip in ns.
        long next() throws SQLException {
            while (true) {
                int i = pos;
                Step st = steps.get(i);
                pos = (pos + 1) % steps.size();
                if (st.setVar != null) {
                    vars.put(st.setVar, eval(st.rpn));
                    continue;
                }
                PreparedStatement ps = stmts[i];
                for (int p = 0; p < st.params.length; p++) ps.setLong(p + 1, vars.get(st.params[p]));
                long t0 = System.nanoTime();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) { }
                }
                return System.nanoTime() - t0;
            }
        }

        long eval(String[] rpn) {
            long[] stack = new long[rpn.length];
            int sp = 0;
            for (String t : rpn) {
                if (t.startsWith("n:")) stack[sp++] = Long.parseLong(t.substring(2));
                else if (t.startsWith("v:")) stack[sp++] = vars.get(t.substring(2));
                else {
                    long r = stack[--sp], l = stack[--sp];
                    stack[sp++] = switch (t) {
                        case "op:+" -> l + r;
                        case "op:-" -> l - r;
                        case "op:*" -> l * r;
                        case "op:/" -> l / r;
                        case "op:%" -> l % r;
                        case "random" -> {
                            if (r < l) throw new ArithmeticException("random(" + l + ", " + r + "): empty range");
                            yield l + rng.nextLong(r - l + 1);
                        }
                        default -> throw new IllegalArgumentException("rpn token " + t);
                    };
                }
            }
            return stack[0];
        }

        void record(long ns) {
            if (n == lat.length) lat = Arrays.copyOf(lat, 2 * n);
            lat[n++] = ns;
        }
    }

    static String run(String transport, long nanos) throws Exception {
        runs++;
        List<Worker> workers = new ArrayList<>();
        try {
            for (int i = 0; i < conns; i++) {
                Worker w = new Worker(transport, runs * 1000 + i);
                workers.add(w);
                long queries = steps.stream().filter(s -> s.sql != null).count();
                for (long q = 0; q < queries; q++) w.next(); // untimed pass: statements prepared, caches warm
            }
            ExecutorService pool = Executors.newFixedThreadPool(conns);
            long start = System.nanoTime();
            long deadline = start + nanos;
            List<Future<?>> futures = new ArrayList<>();
            for (Worker w : workers) {
                futures.add(pool.submit(() -> {
                    while (true) {
                        w.record(w.next());
                        long now = System.nanoTime();
                        if (now >= deadline) { w.end = now; return null; }
                    }
                }));
            }
            try {
                for (Future<?> f : futures) f.get();
            } catch (ExecutionException e) {
                throw (Exception) e.getCause();
            } finally {
                pool.shutdownNow();
            }
            long end = 0, total = 0;
            StringBuilder b = new StringBuilder();
            for (Worker w : workers) {
                end = Math.max(end, w.end);
                total += w.n;
                for (int i = 0; i < w.n; i++) b.append(' ').append(w.lat[i]);
            }
            return "ok " + total + " " + (end - start) + b;
        } finally {
            for (Worker w : workers) w.conn.close();
        }
    }
}
