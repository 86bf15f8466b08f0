package dialect

import "testing"

// TestRedactReferences: a password is masked whole wherever compose
// references stand around or inside it, and the references are kept.
func TestRedactReferences(t *testing.T) {
	for _, c := range []struct{ dialect, in, want string }{
		{URI, "${DB_SCHEME:-postgresql}://app:S3cretPassw0rd@db/app", "${DB_SCHEME:-postgresql}://app:****@db/app"},
		{URI, "${DATABASE_URL:-postgres://web:pw1@db:5432/web}${SUFFIX}", "${DATABASE_URL:-postgres://web:****@db:5432/web}${SUFFIX}"},
		{URI, "postgres://app:ab${MID:-cd}ef@${DB_HOST:-db}/app", "postgres://app:****@${DB_HOST:-db}/app"},
		{URI, "postgres://${U:-app}:${PW:-secret}@db/app", "postgres://${U:-app}:****@db/app"},
		{URI, "postgres://app:p/w@db/app", "postgres://app:****@db/app"},
		{"", "${S}://u:secret@db/x", "${S}://u:****@db/x"},
		{JDBC, "jdbc:postgresql://${H:-db}/app?password=ab${X}cd&user=u", "jdbc:postgresql://${H:-db}/app?password=****&user=u"},
		{JDBC, "jdbc:postgresql://db:5432/app?user=a@b", "jdbc:postgresql://db:5432/app?user=a@b"},
		{DSN, "host=db password='a ${X:-b} c' dbname=x", "host=db password='****' dbname=x"},
		{Npgsql, "Host=db;Password=${PW:-x;y};Database=a", "Host=db;Password=****;Database=a"},
		{URI, "${URL:?postgres://u:secret@db/x is required}", "${URL:?postgres://u:****@db/x is required}"},
		{URI, "postgres://app@db/app", "postgres://app@db/app"},
	} {
		if got := Redact(c.dialect, c.in); got != c.want {
			t.Errorf("redact(%s, %q)\n got %q\nwant %q", c.dialect, c.in, got, c.want)
		}
	}
}

// TestRedactNpgsqlKeys: Npgsql's other password keywords (PSW, SSL
// Password) and quoted passwords (a ';' or a doubled quote inside) are
// redacted whole.
func TestRedactNpgsqlKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Host=db;PSW=x;Pwd=y;SSL Password=z;SslPassword=w;Database=a", "Host=db;PSW=****;Pwd=****;SSL Password=****;SslPassword=****;Database=a"},
		{"Host=db;Password='a;b';Database=a", "Host=db;Password=****;Database=a"},
		{`Host=db;Password="a""b";Database=a`, "Host=db;Password=****;Database=a"},
		{"Host=db;Password='a;b;Database=a", "Host=db;Password=****"},
	} {
		if got := Redact(Npgsql, c.in); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedactEqualParts: a part of a value whose text is its password (the
// user's or the database's name, trial 10 W3) is masked too, but not a
// scheme of the same text.
func TestRedactEqualParts(t *testing.T) {
	for _, c := range []struct{ dialect, in, want string }{
		{URI, "postgres://kitsune:kitsune@db:5432/kitsune", "postgres://****:****@db:5432/****"},
		{URI, "postgres://postgres:postgres@postgres:5432/postgres?sslmode=disable", "postgres://****:****@****:5432/****?sslmode=disable"},
		{URI, "postgres://app:secret@db/kitsune", "postgres://app:****@db/kitsune"},
		{DSN, "host=db dbname=billing user=billing password=billing", "host=db dbname=**** user=**** password=****"},
		{JDBC, "jdbc:postgresql://db:5432/orders?user=app&password=orders", "jdbc:postgresql://db:5432/****?user=app&password=****"},
		{Npgsql, "Host=db;Database=orders;Username=app;Password=orders", "Host=db;Database=****;Username=app;Password=****"},
		{URI, "postgres://ab:ab@db/abc", "postgres://****:****@db/abc"},
	} {
		if got := Redact(c.dialect, c.in); got != c.want {
			t.Errorf("Redact(%s, %q) = %q, want %q", c.dialect, c.in, got, c.want)
		}
	}
}
