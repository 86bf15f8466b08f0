package report

import (
	"bytes"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/uds-migrate/uds-migrate/finding"
)

// Tool is what a report says about the run beside the plan.
type Tool struct {
	// Version goes to SARIF's tool.driver.version.
	Version string
	// SrcRoot is the absolute directory SARIF artifact URIs are relative
	// to: the top level of the repository that holds the project (GitHub
	// code scanning reads a relative URI from the repository root), else
	// the working directory. "" writes paths as given.
	SrcRoot string
}

// SrcRootID is the uriBaseId of SARIF artifact locations under
// Tool.SrcRoot, the name CodeQL and GitHub's documentation use; the run's
// originalUriBaseIds maps it to the root's file:// URI (SARIF 2.1.0
// §3.14.14).
const SrcRootID = "%SRCROOT%"

// SARIF writes the findings as a SARIF 2.1.0 log (OASIS SARIF v2.1.0, §3)
// with one rule per finding code from finding's registry (its title, its
// cause and fix as fullDescription, and helpUri pointing at its section of
// docs/findings.md), built with github.com/owenrumney/go-sarif. An input
// error is a result of level error like any other finding. A file under
// tool.SrcRoot is a relative URI with uriBaseId %SRCROOT% (§3.4.4), so
// the log names it the same from any working directory; a file outside
// it is an absolute file:// URI; standard input ("-") has no location.
func SARIF(w io.Writer, p Plan, tool Tool) error {
	rep, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("uds-migrate", "https://github.com/uds-migrate/uds-migrate")
	run.Tool.Driver.Version = &tool.Version
	if tool.SrcRoot != "" {
		run.WithOriginalUriBaseIds(map[string]*sarif.ArtifactLocation{SrcRootID: sarif.NewSimpleArtifactLocation(dirURI(tool.SrcRoot))})
	}
	var codes []string
	for _, f := range p.Findings {
		codes = append(codes, f.Code)
	}
	sort.Strings(codes)
	for i, c := range codes {
		if i == 0 || codes[i-1] != c {
			code, _ := finding.Lookup(c)
			rule := run.AddRule(c).WithDescription(code.Title).WithHelpURI(code.HelpURI())
			if code.Doc != "" {
				rule.WithFullDescription(sarif.NewMultiformatMessageString(code.Doc))
			}
		}
	}
	for _, f := range p.Findings {
		res := run.CreateResultForRule(f.Code).WithLevel(sarifLevel(f.Severity)).WithMessage(sarif.NewTextMessage(f.Message))
		if f.File == "" || f.File == "-" {
			continue
		}
		uri, base := artifactURI(f.File, tool.SrcRoot)
		art := run.AddDistinctArtifact(uri)
		al := sarif.NewSimpleArtifactLocation(uri)
		if base != "" {
			art.Location.WithUriBaseId(base)
			al.WithUriBaseId(base)
		}
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(al)
		if f.Line > 0 {
			loc = loc.WithRegion(sarif.NewRegion().WithStartLine(f.Line).WithStartColumn(max(f.Column, 1)))
		}
		res.AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	rep.AddRun(run)
	var b bytes.Buffer
	if err := rep.PrettyWrite(&b); err != nil {
		return err
	}
	// A text file ends with a newline (POSIX): without one, a line that
	// follows in the same stream or a shell prompt glues onto the "}".
	b.WriteByte('\n')
	_, err = w.Write(b.Bytes())
	return err
}

// artifactURI is the SARIF URI of a file path (relative to the working
// directory, or absolute) and its uriBaseId: relative to root with
// SrcRootID when the file is under root, else an absolute file:// URI
// without one. With no root the path stays as given (slashes,
// percent-encoded).
func artifactURI(path, root string) (uri, base string) {
	if root == "" {
		return (&url.URL{Path: filepath.ToSlash(path)}).String(), ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return (&url.URL{Path: filepath.ToSlash(path)}).String(), ""
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fileURI(abs), ""
	}
	// url.URL.String writes "./" before a first segment holding ":",
	// which would otherwise read as a scheme.
	return (&url.URL{Path: filepath.ToSlash(rel)}).String(), SrcRootID
}

// fileURI is the file:// URI of an absolute path.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x → /C:/x (RFC 8089)
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// dirURI is the file:// URI of a directory, ending in "/" as §3.14.14
// requires of an originalUriBaseIds entry.
func dirURI(dir string) string {
	u := fileURI(dir)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

func sarifLevel(sev string) string {
	switch sev {
	case "ERROR":
		return "error"
	case "INFO":
		return "note"
	}
	return "warning"
}
