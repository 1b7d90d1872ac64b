// Package foundry holds Hearth Seneschal, the Foundry VTT module that
// implements the Seneschal behaviour of seed 000 §3 against a Hearth
// server, and serves it the way Foundry installs modules: a manifest
// (module.json) whose manifest and download URLs point at this server, and
// a zip of the module.
//
// The module itself is plain ES modules, styles and language files in this
// directory, embedded into the binary; its type-checking and unit tests
// (package.json, test/) are not. Both routes are public: the module is code
// anyone may read, with no secrets and no data in it.
package foundry
