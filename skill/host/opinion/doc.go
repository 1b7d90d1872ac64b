// Package opinion is the shared body of the reputation and npc-perception
// skills: read an opinion through the host API, or propose a change to it
// as a state patch.
package opinion
