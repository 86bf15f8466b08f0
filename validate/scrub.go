package validate

import (
	"errors"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/finding"
)

// scrubbedError is an error whose text has the project's passwords masked;
// errors.As still reaches the *PosError or *Error inside, whose
// messages are masked in place.
type scrubbedError struct {
	err error
	msg string
}

func (e *scrubbedError) Error() string { return e.msg }

func (e *scrubbedError) Unwrap() error { return e.err }

// ScrubErr masks secrets in err's text and in the messages of the error
// types the CLI prints field by field.
func ScrubErr(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	var pe *finding.PosError
	if errors.As(err, &pe) {
		pe.Msg = compose.Scrub(pe.Msg, secrets)
	}
	var ve *Error
	if errors.As(err, &ve) {
		compose.ScrubFindings(ve.Findings, secrets)
	}
	msg := compose.Scrub(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{err: err, msg: msg}
}
