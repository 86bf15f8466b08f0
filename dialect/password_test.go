package dialect

import "testing"

func TestPasswordGiven(t *testing.T) {
	for _, c := range []struct {
		name, val    string
		given, known bool
	}{
		{URI, "postgresql://postgres@db/app", false, true},
		{URI, "postgresql://postgres:pw@db/app", true, true},
		{URI, "postgresql://postgres:@db/app", true, true}, // an empty password is written: libpq sends it
		{DSN, "host=db user=app dbname=app", false, true},
		{DSN, "host=db user=app password=pw", true, true},
		{JDBC, "jdbc:postgresql://db/app", false, false},
	} {
		given, known := PasswordGiven(c.name, c.val)
		if given != c.given || known != c.known {
			t.Errorf("PasswordGiven(%s, %q) = %v, %v; want %v, %v", c.name, c.val, given, known, c.given, c.known)
		}
	}
}
