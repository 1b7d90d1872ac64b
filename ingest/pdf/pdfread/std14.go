package pdfread

// symbolWidths are the advance widths (per 1000 em) of the standard
// Symbol font for the codes whose metrics this package carries: PDFs may
// use Symbol without /Widths, relying on the reader's built-in metrics.
// Codes outside this table send the page to PDFium, which has them all.
var symbolWidths = map[uint32]float64{
	32: 250, 33: 333, 34: 713, 35: 500, 36: 549, 37: 833, 38: 778, 39: 439,
	40: 333, 41: 333, 42: 500, 43: 549, 44: 250, 45: 549, 46: 250, 47: 278,
	48: 500, 49: 500, 50: 500, 51: 500, 52: 500, 53: 500, 54: 500, 55: 500,
	56: 500, 57: 500, 58: 278, 59: 278, 60: 549, 61: 549, 62: 549, 63: 444,
	163: 549, 165: 713, 176: 400, 177: 549, 179: 549, 180: 549, 183: 460,
	184: 549, 185: 549, 186: 549, 187: 549, 188: 1000,
}

// symbolText maps the same codes of Symbol's built-in encoding to Unicode.
var symbolText = map[uint32]rune{
	32: ' ', 33: '!', 34: 0x2200, 35: '#', 36: 0x2203, 37: '%', 38: '&', 39: 0x220B,
	40: '(', 41: ')', 42: 0x2217, 43: '+', 44: ',', 45: 0x2212, 46: '.', 47: '/',
	48: '0', 49: '1', 50: '2', 51: '3', 52: '4', 53: '5', 54: '6', 55: '7',
	56: '8', 57: '9', 58: ':', 59: ';', 60: '<', 61: '=', 62: '>', 63: '?',
	163: 0x2264, 165: 0x221E, 176: 0xB0, 177: 0xB1, 179: 0x2265, 180: 0xD7, 183: 0x2022,
	184: 0xF7, 185: 0x2260, 186: 0x2261, 187: 0x2248, 188: 0x2026,
}
