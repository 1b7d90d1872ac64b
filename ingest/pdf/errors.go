package pdf

import "errors"

// Errors Extract wraps; test them with errors.Is.
var (
	// ErrCorrupt: the data is not a PDF, or is too damaged to read.
	ErrCorrupt = errors.New("pdf: not a PDF or damaged beyond repair")
	// ErrEncrypted: the PDF is password protected.
	ErrEncrypted = errors.New("pdf: password protected; remove the password and try again")
	// ErrNoText: no page has a text layer worth reading.
	ErrNoText = errors.New("pdf: image-only PDF: it has no text layer and OCR is not available")
	// ErrTooLarge: the PDF has more pages than Options.MaxPages allows.
	ErrTooLarge = errors.New("pdf: too many pages")
)
