# Connects with Ruby's pg gem (e2e TestURIReaders).
#
#     ruby probe.rb ruby-pg < uris     # one URI a line
#     ruby probe.rb rails < uris
#     ruby probe.rb versions
#
# ruby-pg hands each URI to PG.connect unchanged; rails hands it to
# ActiveRecord::Base.establish_connection, which parses it with
# ConnectionUrlResolver (URI::Parser, then the pg gem). Debian ships
# activerecord 6.1, whose raw_config merges the URL's parts over its query;
# Rails 7.0 (rails/rails c9b25c89ae43) reverse-merges them so that the
# query wins, and that one method is re-enacted here as Rails' main branch
# has it (activerecord/lib/active_record/database_configurations/
# connection_url_resolver.rb); parsing, unescaping and connecting stay
# activerecord's and pg's. One JSON line per URI:
# {"ok":true,"socket":B,"dir":D} or {"ok":false,"error":"..."}.
require "json"
require "pg"

def load_rails
  require "active_record"
  require "active_record/database_configurations"
  require "active_record/database_configurations/connection_url_resolver"
  ActiveRecord::DatabaseConfigurations::ConnectionUrlResolver.class_eval do
    private def raw_config
      if uri.opaque
        query_hash.merge(adapter: @adapter, database: uri.opaque)
      else
        query_hash.reverse_merge(adapter: @adapter, username: uri.user, password: uri.password,
          port: uri.port, database: database_from_path, host: uri.hostname)
      end
    end
  end
  true
rescue LoadError
  false
end

QUERY = "SELECT inet_client_addr() IS NULL AS socket, current_setting('unix_socket_directories') AS dir"

if ARGV[0] == "versions"
  vers = {"pg" => PG::VERSION, "libpq" => PG.library_version.to_s}
  vers["activerecord"] = ActiveRecord::VERSION::STRING if load_rails
  puts JSON.generate(vers)
  exit
end
rails = ARGV[0] == "rails"
abort "activerecord not installed" if rails && !load_rails
$stdin.each_line do |line|
  uri = line.chomp
  begin
    if rails
      ActiveRecord::Base.establish_connection(uri)
      row = ActiveRecord::Base.connection.select_one(QUERY)
      ActiveRecord::Base.remove_connection
    else
      conn = PG.connect(uri)
      row = conn.exec(QUERY).first
      conn.close
    end
    res = {"ok" => true, "socket" => [true, "t"].include?(row["socket"]), "dir" => row["dir"]}
  rescue => e
    # URI::InvalidURIError quotes the user info, password included.
    res = {"ok" => false, "error" => "#{e.class}: #{e.message.strip.gsub(/:[^:@\/\s]*@/, ":****@")}"}
  end
  puts JSON.generate(res)
  $stdout.flush
end
