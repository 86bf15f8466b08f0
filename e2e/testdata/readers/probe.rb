# Connects with Ruby's pg gem (e2e TestURIReaders).
#
#     ruby probe.rb ruby-pg < uris     # one URI a line
#     ruby probe.rb versions
#
# Each URI is handed to PG.connect unchanged; one JSON line per URI:
# {"ok":true,"socket":B,"dir":D} or {"ok":false,"error":"..."}.
require "json"
require "pg"

QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir"

if ARGV[0] == "versions"
  puts JSON.generate({"pg" => PG::VERSION, "libpq" => PG.library_version.to_s})
  exit
end
$stdin.each_line do |line|
  uri = line.chomp
  begin
    conn = PG.connect(uri)
    row = conn.exec(QUERY).first
    conn.close
    res = {"ok" => true, "socket" => row["socket"] == "t", "dir" => row["dir"]}
  rescue => e
    res = {"ok" => false, "error" => "#{e.class}: #{e.message.strip}"}
  end
  puts JSON.generate(res)
  $stdout.flush
end
