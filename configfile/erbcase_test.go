package configfile

import (
	"strings"
	"testing"
)

// solidusDB is solidus' dummy app database.yml (solidusio/solidus @
// 1f5bf5c, core/lib/spree/testing_support/dummy_app/database.yml), its ERB
// preamble and default section.
const solidusDB = `<%
  adapter =
    case ENV['DB']
    when 'mysql2', 'mysql' then 'mysql2'
    when 'postgresql', 'postgres' then 'postgresql'
    when 'sqlite3', 'sqlite', '', nil then 'sqlite3'
    else raise "Invalid DB specified " + ENV['DB'].inspect
    end

  db_host =
    case adapter
    when 'mysql2' then ENV['DB_MYSQL_HOST'] || ENV['DB_HOST']
    when 'postgresql' then ENV['DB_POSTGRES_HOST'] || ENV['DB_HOST']
    else ENV['DB_HOST']
    end
%>

default: &default
  adapter: <%= adapter %>
  <% unless db_host.blank? %>host: <%= db_host %><% end %>
`

func TestERBCaseHost(t *testing.T) {
	pg := []string{"postgresql", "postgis"}
	for _, c := range []struct {
		name, data, key string
		line            int // 0: no evidence
	}{
		{"solidus: read only in the postgresql branch", solidusDB, "DB_POSTGRES_HOST", 13},
		{"solidus: read for mysql2 and sqlite3 too", solidusDB, "DB_HOST", 0},
		{"solidus: mysql2 only", solidusDB, "DB_MYSQL_HOST", 0},
		{"the generator's template: a 'postgres' branch never runs", strings.Replace(solidusDB, "when 'postgresql' then ENV['DB_POSTGRES_HOST']", "when 'postgres' then ENV['DB_POSTGRES_HOST']", 1), "DB_POSTGRES_HOST", 0},
		{"host on another variable than the adapter's", strings.Replace(solidusDB, "case adapter", "case ENV['DB']", 1), "DB_POSTGRES_HOST", 0},
		{"no pg adapter among the results", strings.Replace(solidusDB, "then 'postgresql'\n", "then 'mysql2'\n", 1), "DB_POSTGRES_HOST", 0},
		{"host written from another variable", strings.Replace(solidusDB, "host: <%= db_host %>", "host: <%= other %>", 1), "DB_POSTGRES_HOST", 0},
	} {
		line, ok := ERBCaseHost([]byte(c.data), c.key, pg)
		if ok != (c.line != 0) || line != c.line {
			t.Errorf("%s: ERBCaseHost(%s) = %d, %v; want line %d", c.name, c.key, line, ok, c.line)
		}
	}
}
