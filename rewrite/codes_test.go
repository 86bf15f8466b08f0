package rewrite

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
		if got, ok := LookupCode(c.ID); !ok || got.ID != c.ID {
			t.Errorf("LookupCode(%s) = %v, %v", c.ID, got.ID, ok)
		}
	}
	if _, ok := LookupCode("uds120"); !ok {
		t.Error("LookupCode does not accept lower case")
	}
	if _, ok := LookupCode("UDS999"); ok {
		t.Error("LookupCode(UDS999) found a code")
	}
}

// TestNewFindingUnknownCode: a code outside the registry is a programming
// error, not a finding with an empty severity.
func TestNewFindingUnknownCode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("newFinding(UDS999) did not panic")
		}
	}()
	newFinding("UDS999", Pos{}, "", "", "")
}
