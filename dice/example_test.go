package dice_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/hearth-rpg/hearth/dice"
)

func ExampleRoll() {
	r := rand.New(rand.NewPCG(1, 2))
	res, err := dice.Roll(r, "4d6kh3 # strength", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Total == res.Terms[0].Value, len(res.Terms[0].Dice))
	// Output: true 4
}

func ExampleParse_error() {
	_, err := dice.Parse("4d6kx3")
	fmt.Println(err)
	// Output: dice: "4d6kx3" column 4: unknown modifier "kx3"; expected kh, kl, dh, dl, !, r or a comparison such as >=5
}

func ExampleExpr_Roll_lookup() {
	dex := func(name string) (int, bool) {
		if name == "dex" {
			return 3, true
		}
		return 0, false
	}
	res, _ := dice.MustParse("1d20+dex adv").Roll(rand.New(rand.NewPCG(3, 4)), dex)
	fmt.Println(res.Notation, res.Terms[1].Value)
	// Output: 2d20kh1+dex 3
}
