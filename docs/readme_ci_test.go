package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// yamlBlock returns README's ```yaml block whose first line is first.
func yamlBlock(t *testing.T, first string) string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(data), "```yaml\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		if strings.HasPrefix(block, first) {
			return block
		}
	}
	t.Fatalf("README has no ```yaml block starting %q", first)
	return ""
}

// buildTool builds cmd/uds-migrate into a new folder and returns the
// folder, for PATH.
func buildTool(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "uds-migrate"), "./cmd/uds-migrate")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestREADMEWorkflow runs the GitHub Actions job README's CI section shows
// (issue #23): each `run:` step as written, with bash, in a repository
// holding the example compose.yml, and the binary built from this tree
// standing in for `go install ...@latest` (the network). The SARIF step
// writes a SARIF 2.1.0 log; the --check step exits 1 while the migration is
// pending, as its comment says, and the problem matcher of
// docs/problem-matcher.json reads its findings.
func TestREADMEWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(yamlBlock(t, "name: uds-migrate\n")), &wf); err != nil {
		t.Fatal(err)
	}
	bin := buildTool(t)
	repo := t.TempDir()
	compose, err := os.ReadFile("../examples/spring-postgres/compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "compose.yml"), compose, 0o644); err != nil {
		t.Fatal(err)
	}
	matchers := problemMatchers(t)
	ran := 0
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			switch {
			case st.Run == "":
				continue // uses: an action
			case strings.Contains(st.Run, "go install"):
				t.Logf("skipped (the network; the tree's build stands in): %s", st.Run)
				continue
			case strings.Contains(st.Run, "curl "):
				t.Logf("skipped (the network; TestProblemMatcher reads docs/problem-matcher.json): %s", strings.TrimSpace(st.Run))
				continue
			}
			ran++
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", st.Run)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "RUNNER_TEMP="+t.TempDir())
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			want := 0
			if strings.Contains(st.Run, "--check") {
				want = 1 // the example's migration is pending
			}
			if code != want {
				t.Errorf("README CI step %q: exit %d, want %d:\n%s", st.Run, code, want, out.String())
			}
			if strings.Contains(st.Run, "--format gcc") {
				annotated := 0
				for _, line := range strings.Split(out.String(), "\n") {
					for _, re := range matchers {
						if re.MatchString(line) {
							annotated++
							break
						}
					}
				}
				if annotated == 0 {
					t.Errorf("README CI step %q: the problem matcher reads no line of:\n%s", st.Run, out.String())
				}
			}
		}
	}
	if ran < 2 {
		t.Fatalf("ran %d steps of README's CI job; did it change shape?", ran)
	}
	data, err := os.ReadFile(filepath.Join(repo, "uds.sarif"))
	if err != nil {
		t.Fatalf("the SARIF step wrote no uds.sarif: %v", err)
	}
	var log struct {
		Version string
		Runs    []json.RawMessage
	}
	if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Errorf("uds.sarif is not one SARIF 2.1.0 log (%v):\n%s", err, data)
	}
}

func problemMatchers(t *testing.T) []*regexp.Regexp {
	t.Helper()
	data, err := os.ReadFile("problem-matcher.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ProblemMatcher []struct{ Pattern []struct{ Regexp string } }
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var out []*regexp.Regexp
	for _, pm := range m.ProblemMatcher {
		out = append(out, regexp.MustCompile(pm.Pattern[0].Regexp))
	}
	return out
}

// TestREADMEConfigExample: the .uds-migrate.yaml README shows is a config
// file the tool reads (an unknown key or code would be exit 2).
func TestREADMEConfigExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildTool(t)
	dir := t.TempDir()
	compose, err := os.ReadFile("../examples/spring-postgres/compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"compose.yml": compose, ".uds-migrate.yaml": []byte(yamlBlock(t, "ignore:"))} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "uds-migrate"), "plan", "--format", "gcc", "compose.yml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 || err != nil && ee == nil {
		t.Fatalf("plan with README's config file: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "UDS102") {
		t.Errorf("README's config ignores UDS102, yet:\n%s", out)
	}
}
