// Package dice parses and rolls dice notation.
//
// An expression is terms joined by + and -, then optional words and a label:
//
//	2d6+3          two six-sided dice plus three
//	d20, d%, 4dF   one d20; d% is d100; Fate dice roll -1, 0 or +1
//	2D, D66        Traveller: D without sides is a d6; D66 reads two d6 as
//	               tens and units (11..66) and is recorded as one die of
//	               66 "sides" whose value is the combined number
//	4d6kh3         keep the highest 3 (k3 means the same); kl keeps lowest;
//	4d6dl1, dh1    drop the lowest / highest
//	1d20+5 adv     advantage: the first 1d20 becomes 2d20kh1 (dis: 2d20kl1);
//	               also "advantage", "disadvantage" and d20adv
//	3d6!, 3d6!>=5  exploding: each die that shows its maximum (or meets the
//	               comparison) adds another die, at most MaxExplosions per term
//	2d6r1, r<3     reroll once any die that shows 1 (or meets the comparison);
//	               the first value stays in the result, marked Rerolled
//	6d6>=5         success counting: the term is worth the number of dice that
//	               meet the comparison (>=, >, <=, <, =); Result.Successes is
//	               their count, and Total adds the other terms to it
//	1d20+dex       references resolve through a Lookup at roll time; names are
//	1d20 + player.stats.dexterity   letters, digits, _ and dots
//	1d20+3 # Stealth, 1d20+3 [Stealth]   a label
//
// Dice are drawn from the given *rand.Rand left to right, term by term, each
// die's explosions and rerolls immediately after it, so the same seed and
// expression always give the same Result.
//
// Limits keep an expression cheap whatever its source: MaxLength bytes,
// MaxTerms terms, MaxDicePerTerm and MaxDice dice, MaxSides sides. Every
// violation is an *Error naming the column and what would be valid.
package dice
