package pgserver

import (
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

func TestServerPort(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		svc  types.ServiceConfig
		want int
	}{
		{types.ServiceConfig{}, 5432},
		{svcWith(types.ShellCommand{"postgres", "-c", "port=5433"}, nil), 5433},
		{svcWith(types.ShellCommand{"postgres", "-p", "6000"}, nil), 6000},
		{svcWith(types.ShellCommand{"postgres", "-p6001"}, nil), 6001},
		{svcWith(types.ShellCommand{"-cport=6002"}, nil), 6002},
		{svcWith(types.ShellCommand{"postgres", "--port=6003"}, nil), 6003},
		{svcWith(nil, types.MappingWithEquals{"PGPORT": s("6004")}), 6004},
		{svcWith(types.ShellCommand{"postgres", "-c", "max_connections=200"}, nil), 5432},
		{svcWith(nil, nil), 5432},
	}
	for _, c := range cases {
		if got := Port(c.svc); got != c.want {
			t.Errorf("serverPort(%v %v) = %d, want %d", c.svc.Command, c.svc.Environment, got, c.want)
		}
	}
}

func svcWith(cmd types.ShellCommand, env types.MappingWithEquals) types.ServiceConfig {
	var s types.ServiceConfig
	s.Command, s.Environment = cmd, env
	return s
}
