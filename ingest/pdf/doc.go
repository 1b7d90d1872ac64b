// Package pdf extracts a PDF into the shared document model
// (ingest.Document): page text in reading order with running headers,
// footers and page numbers removed, the bookmark tree (or, without one, a
// section tree found from the table of contents or from font sizes and
// weights), and the embedded images: plain JPEGs kept as they are, the
// others as lossless WebP.
//
// Page text is read natively first (package pdfread: the file's objects,
// content streams and fonts, in Go), on as many goroutines as there are
// cores; its characters, with PDFium's loose boxes, font sizes and
// weights, go through the same word building and layout as PDFium's
// (native.go). PDFium compiled to WebAssembly (go-pdfium's webassembly
// package, run by wazero, no cgo) reads the rest: the pages the native
// reader cannot (a font it cannot map to Unicode, a rotated page), files
// it cannot parse, and the images of pages that draw any the native
// reader does not take (nativeimages.go: CMYK, JBIG2, JPX, CCITT, 1-bit,
// masks, inline images, Decode arrays). PDFium is
// started the first time a document needs it. An Extractor owns a small
// pool of PDFium instances; each is single-threaded, and one Extract call
// spreads the pages PDFium reads over the instances it can get, calling
// PDFium's exports directly for page text (rawtext.go). PDFiumOnly reads
// everything with PDFium.
//
// The package reads untrusted files: it guards page counts and per-page
// text sizes, turns native reader failures into a fallback to PDFium and
// PDFium failures into the sentinel errors ErrCorrupt,
// ErrEncrypted, ErrNoText and ErrTooLarge, and never panics on bad input.
// It must not chunk, store or caption anything: that is the ingest
// pipeline's job.
package pdf
