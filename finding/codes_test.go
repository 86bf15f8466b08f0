package finding

import (
	"regexp"
	"testing"
)

// TestCodeRegistry: the registry is sorted by ID with no code twice, every
// title says something no other title says, and every severity is one of
// the three.
func TestCodeRegistry(t *testing.T) {
	id := regexp.MustCompile(`^UDS\d{3}$`)
	titles := map[string]string{}
	for i, c := range codes {
		if !id.MatchString(c.ID) {
			t.Errorf("code %q is not UDS and three digits", c.ID)
		}
		if i > 0 && codes[i-1].ID >= c.ID {
			t.Errorf("codes are not sorted by ID, or %s is there twice: %s comes after %s", c.ID, c.ID, codes[i-1].ID)
		}
		if other, ok := titles[c.Title]; ok {
			t.Errorf("%s and %s share the title %q", other, c.ID, c.Title)
		}
		titles[c.Title] = c.ID
		switch c.Severity {
		case SevError, SevWarning, SevInfo:
		default:
			t.Errorf("%s: severity %q", c.ID, c.Severity)
		}
		switch c.CarriedAs {
		case "":
		case SevWarning, SevInfo:
			if c.Severity != SevError {
				t.Errorf("%s: carried as %s, but only an ERROR is carried below its severity", c.ID, c.CarriedAs)
			}
		default:
			t.Errorf("%s: carried as %q", c.ID, c.CarriedAs)
		}
		if c.LeavesTCP && c.Severity == SevError {
			t.Errorf("%s: an ERROR (validate) cannot leave a value on TCP in a migration", c.ID)
		}
		if got, ok := Lookup(c.ID); !ok || got.ID != c.ID {
			t.Errorf("Lookup(%s) = %v, %v", c.ID, got.ID, ok)
		}
	}
	if _, ok := Lookup("uds120"); !ok {
		t.Error("Lookup does not accept lower case")
	}
	if _, ok := Lookup("UDS999"); ok {
		t.Error("Lookup(UDS999) found a code")
	}
}

// TestNewFindingUnknownCode: a code outside the registry is a programming
// error, not a finding with an empty severity.
func TestNewFindingUnknownCode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(UDS999) did not panic")
		}
	}()
	New("UDS999", Pos{}, "", "", "")
}
