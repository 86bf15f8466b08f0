// Probe connects with pgjdbc (and junixsocket, when a URL names its socket
// factory) and reports what the server saw. Run with Java's single-file
// source launcher:
//
//   java -cp postgresql.jar:junixsocket-common.jar Probe.java URL USER PASSWORD
//   java -cp ... Probe.java -      (targets on stdin, one "URL\tUSER\tPASSWORD" a line)
//
// One output line per target, fields separated by tabs:
//   OK   <one> <current_user> <current_database()> <t|f: inet_client_addr() IS NULL>
//   ERR  <exception chain: "Class: message" for each cause, joined by " | caused by: ">
// Tabs, newlines and backslashes inside fields are escaped as \t, \n, \\.
// Exit status 0 when every line was written, whatever the targets' outcome.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

public class Probe {
    static final String QUERY = "SELECT 1, current_user, current_database(), inet_client_addr() IS NULL";

    public static void main(String[] args) throws Exception {
        List<String[]> targets = new ArrayList<>();
        if (args.length == 1 && args[0].equals("-")) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isEmpty()) continue;
                targets.add(line.split("\t", -1));
            }
        } else if (args.length == 3) {
            targets.add(args);
        } else {
            System.err.println("usage: Probe URL USER PASSWORD | Probe -");
            System.exit(2);
        }
        // Bound each attempt: a wrong socket path must fail, not hang.
        DriverManager.setLoginTimeout(60);
        for (String[] t : targets) {
            System.out.println(probe(t));
            System.out.flush();
        }
    }

    static String probe(String[] t) {
        if (t.length != 3) {
            return "ERR\tprobe: want URL<TAB>USER<TAB>PASSWORD, got " + t.length + " fields";
        }
        Properties props = new Properties();
        props.setProperty("user", t[1]);
        if (!t[2].isEmpty()) props.setProperty("password", t[2]);
        try (Connection c = DriverManager.getConnection(t[0], props);
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(QUERY)) {
            rs.next();
            return "OK\t" + rs.getInt(1) + "\t" + esc(rs.getString(2)) + "\t" + esc(rs.getString(3)) + "\t"
                    + (rs.getBoolean(4) ? "t" : "f");
        } catch (Throwable e) {
            StringBuilder b = new StringBuilder();
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c != e) b.append(" | caused by: ");
                b.append(c.toString());
                if (c.getCause() == c) break;
            }
            return "ERR\t" + esc(b.toString());
        }
    }

    static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }
}
