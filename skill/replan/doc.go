// Package replan is the bounded replan loop of seed 001 §2.3: ask a
// Planner for a plan, execute it, and when it fails ask again with the
// failed skills disabled and the failed plan as parent, at most five
// times; then fall back to template narration. The caller always gets an
// answer, within bounded time, whatever the planner or the skills do.
//
// Skill health (skill.Health) carries across turns of a session: skills in
// permanentFailure start every turn disabled. Every plan attempt and the
// outcome of the turn are recorded for analytics (§2.7).
//
// The package does not generate plans (a Planner does: an LLM, or the
// offline pattern planner in skill/pattern), run scripts (skill/plan
// does), or apply the resulting state to the game world.
package replan
