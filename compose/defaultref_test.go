package compose

import (
	"testing"
)

// TestUsedDefault pins compose's rule (Compose Specification,
// "Interpolation"): ${V:-d} takes d when V is unset or empty, ${V-d} only
// when V is unset; only a value written as one whole reference counts.
func TestUsedDefault(t *testing.T) {
	unset, empty, set := map[string]string{}, map[string]string{"V": ""}, map[string]string{"V": "x"}
	for _, tc := range []struct {
		raw  string
		env  map[string]string
		want bool
	}{
		{"${V:-postgres://db/a}", unset, true},
		{"${V:-postgres://db/a}", empty, true},
		{"${V:-postgres://db/a}", set, false},
		{"${V-postgres://db/a}", unset, true},
		{"${V-postgres://db/a}", empty, false},
		{"${V-postgres://db/a}", set, false},
		{"${V:-host=db password=${P:-x}}", unset, true},
		{"x${V:-postgres://db/a}", unset, false},
		{"${V:-a}${W:-b}", unset, false},
		{"${V:?required}", unset, false},
		{"${V}", unset, false},
	} {
		d, got := UsedDefault(tc.raw, tc.env)
		if got != tc.want {
			t.Errorf("usedDefault(%q, %v) = %v, want %v", tc.raw, tc.env, got, tc.want)
		}
		if got && d.Name != "V" {
			t.Errorf("usedDefault(%q): name %q, want V", tc.raw, d.Name)
		}
	}
}
