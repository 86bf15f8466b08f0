<?php
// Connects with PHP's readers of postgres:// URIs (e2e TestURIReaders).
//
//     php probe.php READER < uris     # one URI a line
//     php probe.php versions
//
// READER:
//   doctrine    Doctrine DBAL's DsnParser::parse (src/Tools/DsnParser.php,
//               doctrine/dbal afcd62473459a3eab92c684ed60d5c4bf42c6164):
//               parse_url (false: MalformedDsnException), rawurldecode of
//               each part, the path's first '/' dropped as dbname, the
//               query's parse_str array merged over the parts; then its
//               pdo_pgsql driver's constructPdoDsn (src/Driver/PDO/PgSQL/
//               Driver.php: host=, port=, dbname=, sslmode= when set).
//   laravel     Laravel's ConfigurationUrlParser (src/Illuminate/Support/
//               ConfigurationUrlParser.php, laravel/framework
//               bd71b45fbb7e672957bf6ff61baddefe15fbca6a): parse_url (false:
//               "The database configuration URL is malformed."), the query
//               merged over the parts; then PostgresConnector's
//               "pgsql:host=H;dbname=D;port=P" DSN.
//   pg_connect  the URI handed to pg_connect unchanged (libpq).
// Neither framework installs here (no composer registry), so their few
// lines of URL handling are re-enacted below with PHP's own parse_url,
// rawurldecode, parse_str and PDO, which are what decide the form.
//
// For each URI one JSON line: {"ok":true,"socket":B,"dir":D} or
// {"ok":false,"error":"..."}.

const QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir";

function doctrine(string $uri): array
{
    $url = parse_url($uri);
    if ($url === false) {
        throw new Exception('MalformedDsnException: Malformed database connection URL');
    }
    foreach ($url as $k => $v) {
        if (is_string($v)) {
            $url[$k] = rawurldecode($v);
        }
    }
    $p = [];
    foreach (['host' => 'host', 'port' => 'port', 'user' => 'user', 'pass' => 'password'] as $from => $to) {
        if (isset($url[$from])) {
            $p[$to] = $url[$from];
        }
    }
    if (isset($url['path'])) {
        $p['dbname'] = substr($url['path'], 1);
    }
    if (isset($url['query'])) {
        $q = [];
        parse_str($url['query'], $q);
        $p = array_merge($p, $q);
    }
    $dsn = 'pgsql:';
    foreach (['host', 'port', 'dbname', 'sslmode'] as $k) {
        if (isset($p[$k]) && $p[$k] !== '') {
            $dsn .= $k . '=' . $p[$k] . ';';
        }
    }
    return pdo($dsn, $p['user'] ?? '', $p['password'] ?? '');
}

function laravel(string $uri): array
{
    $raw = parse_url($uri);
    if ($raw === false) {
        throw new Exception('InvalidArgumentException: The database configuration URL is malformed.');
    }
    $c = array_map('rawurldecode', array_filter($raw, 'is_string'));
    $cfg = array_filter([
        'database' => isset($c['path']) && $c['path'] !== '/' ? substr($c['path'], 1) : null,
        'host' => $c['host'] ?? null,
        'port' => $raw['port'] ?? null,
        'username' => $c['user'] ?? null,
        'password' => $c['pass'] ?? null,
    ], fn ($v) => !is_null($v));
    if (!empty($raw['query'])) {
        $q = [];
        parse_str($raw['query'], $q);
        $cfg = array_merge($cfg, $q);
    }
    // PostgresConnector::getDsn
    $dsn = 'pgsql:' . (isset($cfg['host']) ? 'host=' . $cfg['host'] . ';' : '') . 'dbname=' . ($cfg['database'] ?? '');
    if (isset($cfg['port'])) {
        $dsn .= ';port=' . $cfg['port'];
    }
    return pdo($dsn, $cfg['username'] ?? '', $cfg['password'] ?? '');
}

function pdo(string $dsn, string $user, string $password): array
{
    $pdo = new PDO($dsn, $user, $password, [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION, PDO::ATTR_TIMEOUT => 10]);
    $row = $pdo->query(QUERY)->fetch(PDO::FETCH_ASSOC);
    return [$row['socket'], $row['dir']];
}

function pgconnect(string $uri): array
{
    $conn = @pg_connect($uri, PGSQL_CONNECT_FORCE_NEW);
    if ($conn === false) {
        $e = error_get_last();
        throw new Exception('pg_connect: ' . ($e['message'] ?? 'failed'));
    }
    $row = pg_fetch_assoc(pg_query($conn, QUERY));
    pg_close($conn);
    return [$row['socket'] === 't', $row['dir']];
}

if ($argv[1] === 'versions') {
    // Major.minor: Debian's security updates move the patch level.
    $mm = fn ($v) => $v === false ? false : implode('.', array_slice(explode('.', $v), 0, 2));
    echo json_encode(['php' => $mm(PHP_VERSION), 'pgsql' => $mm(phpversion('pgsql')), 'pdo_pgsql' => $mm(phpversion('pdo_pgsql'))]), "\n";
    exit(0);
}
$read = ['doctrine' => 'doctrine', 'laravel' => 'laravel', 'pg_connect' => 'pgconnect'][$argv[1]];
while (($line = fgets(STDIN)) !== false) {
    $uri = rtrim($line, "\n");
    try {
        [$socket, $dir] = $read($uri);
        $res = ['ok' => true, 'socket' => (bool) $socket, 'dir' => $dir];
    } catch (Throwable $e) {
        $res = ['ok' => false, 'error' => get_class($e) . ': ' . $e->getMessage()];
    }
    echo json_encode($res, JSON_UNESCAPED_SLASHES), "\n";
}
