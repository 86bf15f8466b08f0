// Reads one URI a line on stdin and prints, for each, one line of JSON:
// whether url::Url::parse takes it, its error, the URL after set_query
// replaces the query, as Lemmy's get_database_url_with_options does
// (crates/utils/src/settings/mod.rs:92,110 @439734dd), and what sqlx's
// PgConnectOptions::parse_from_url reads from the parsed URL to choose a
// socket (sqlx-postgres/src/options/parse.rs:12-17,69-74): host_str and
// the last host= query value.
use std::io::BufRead;
use url::Url;

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() {
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let uri = line.expect("stdin");
        match Url::parse(&uri) {
            Err(e) => println!("{{\"ok\":false,\"error\":{}}}", quote(&e.to_string())),
            Ok(mut u) => {
                let parsed = u.to_string();
                let host = u.host_str().unwrap_or("").to_string();
                let query_host = u.query_pairs().filter(|(k, _)| k == "host").map(|(_, v)| v.into_owned()).last().unwrap_or_default();
                u.set_query(Some("options=-c%20geqo_threshold%3D12"));
                println!(
                    "{{\"ok\":true,\"parsed\":{},\"set_query\":{},\"host\":{},\"query_host\":{}}}",
                    quote(&parsed),
                    quote(u.as_str()),
                    quote(&host),
                    quote(&query_host)
                );
            }
        }
    }
}
