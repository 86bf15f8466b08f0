package main

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"

	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// styleFor is how text findings are written to w. For a person at a
// terminal (or with CLICOLOR_FORCE set, as for ls and friends): each
// finding wrapped at the terminal's width with its source line and a caret
// under the position, in colour unless NO_COLOR is set and not empty
// (https://no-color.org). Otherwise the plain one-line form, which scripts
// and goldens read.
func styleFor(w io.Writer, inputs []rewrite.Input) report.Style {
	forced := os.Getenv("CLICOLOR_FORCE") != "" && os.Getenv("CLICOLOR_FORCE") != "0"
	if !isTerminal(w) && !forced {
		return report.Style{}
	}
	return report.Style{
		Color:  os.Getenv("NO_COLOR") == "",
		Width:  termWidth(w),
		Source: fileLines(inputs),
	}
}

// termWidth is the terminal's width in columns: the window size of w,
// else COLUMNS, else 80.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}
