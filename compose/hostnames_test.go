package compose

import (
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

// TestHostNamesOnce: a container_name equal to the service name, or an
// alias given on two networks, is one name (the plan lists each once).
func TestHostNamesOnce(t *testing.T) {
	svc := types.ServiceConfig{Name: "postgres", ContainerName: "postgres"}
	svc.Hostname = "DB"
	svc.Networks = map[string]*types.ServiceNetworkConfig{
		"a": {Aliases: []string{"pg"}},
		"b": {Aliases: []string{"PG"}},
	}
	got := HostNames(svc)
	if len(got) == 3 {
		got[2] = strings.ToLower(got[2]) // which alias comes first is a map's order
	}
	if want := []string{"postgres", "DB", "pg"}; !slices.Equal(got, want) {
		t.Errorf("HostNames = %q, want %q", got, want)
	}
}
