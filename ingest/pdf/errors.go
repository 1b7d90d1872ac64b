package pdf

import "github.com/hearth-rpg/hearth"

// Errors Extract wraps; test them with errors.Is.
var (
	// ErrCorrupt: the data is not a PDF, or is too damaged to read.
	ErrCorrupt = &hearth.Error{Code: hearth.Invalid, Message: "pdf: not a PDF or damaged beyond repair"}
	// ErrEncrypted: the PDF is password protected.
	ErrEncrypted = &hearth.Error{Code: hearth.Invalid, Message: "pdf: password protected; remove the password and try again"}
	// ErrNoText: no page has a text layer worth reading.
	ErrNoText = &hearth.Error{Code: hearth.Invalid, Message: "pdf: image-only PDF: it has no text layer and OCR is not available"}
	// ErrTooLarge: the PDF has more pages than Options.MaxPages allows.
	ErrTooLarge = &hearth.Error{Code: hearth.Invalid, Message: "pdf: too many pages"}
)
