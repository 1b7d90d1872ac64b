// Package indextest is the conformance suite of retrieve.Index: every
// backend of the lore index (retrieve/sqliteindex, retrieve/pgindex) runs
// Run from its tests, so a scene gets the same lore whichever one holds
// it.
//
// To pass, a backend must:
//   - replace a file's chunks in one Upsert, record its hash, delete by
//     file and by pack, and report Stats (with the embedder's name and
//     dimension) that count what it holds;
//   - refuse bad input (no pack or file, an access level or corpus out of
//     range, a chunk ID twice or already another file's) and change
//     nothing when it does;
//   - rank full text like BM25 with English stemming, so the passage that
//     answers a question on a small corpus comes first; without query
//     words, order filter matches by tier, then file order;
//   - filter by pack, entity (as ID or reference), location, faction,
//     threads, content types, tags (any or all) and corpus exactly as
//     retrieve.Filter.Match does;
//   - never read a chunk above the reader's role into a Result, whatever
//     the filter and whatever full-text syntax the query text holds, and
//     count the ones it withheld when asked to Explain;
//   - with an embedder (the suite uses embedding.NewHashing), find by
//     vector what full text misses, and fuse both rankings with a trace
//     naming each signal;
//   - cut duplicates, honour Budget and Limit, explain every passage it
//     examined, and give the same result for the same query and content
//     every time, whatever order the content was indexed in; passages
//     equal in every score come in the order they were indexed in, and a
//     ranking too short for all of them cuts them there (Ties);
//   - take any query text without error up to retrieve.MaxQueryBytes and
//     refuse longer ones.
//
// A backend's test calls Run with a function that opens a fresh, empty
// index with the given Options:
//
//	func TestConformance(t *testing.T) {
//		indextest.Run(t, func(t *testing.T, o indextest.Options) retrieve.Index {
//			...
//		})
//	}
package indextest
