// Package pdfread reads the text of a PDF natively: the object layer
// (classic and stream cross-reference tables, /Prev chains, object
// streams, a recovery scan when the table is broken), the usual stream
// filters, the page tree, and a content-stream interpreter that places
// every character with its Unicode text, box, font size and weight.
//
// It is the fast path of package pdf, which falls back to PDFium for
// what this one does not do: a page whose text cannot be mapped to
// Unicode (a font with only a built-in encoding and no ToUnicode map,
// say) reports ErrUnsupported, and the caller reads that page with
// PDFium. Images are not decoded here; Page.HasImages says which pages
// have them.
//
// Every input is untrusted: object nesting, decoded stream sizes, Form
// XObject recursion and the operators run per page are bounded, and
// errors name the object or page they are about.
package pdfread
