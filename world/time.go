package world

import "fmt"

// GameTime is in-game time in minutes since the campaign began (day 1,
// 00:00). Campaigns usually start later in the day; see Clock.
type GameTime int64

// Common durations.
const (
	Minute GameTime = 1
	Hour            = 60 * Minute
	Day             = 24 * Hour
	Week            = 7 * Day
)

// Day returns the 1-based day number.
func (t GameTime) Day() int { return int(t/Day) + 1 }

// Clock returns the hour and minute of the day.
func (t GameTime) Clock() (hour, minute int) {
	m := int(t % Day)
	return m / 60, m % 60
}

// PartOfDay names the time of day: night, morning, afternoon or evening.
func (t GameTime) PartOfDay() string {
	h, _ := t.Clock()
	switch {
	case h < 5:
		return "night"
	case h < 12:
		return "morning"
	case h < 18:
		return "afternoon"
	case h < 22:
		return "evening"
	}
	return "night"
}

// String formats the time as "Day 2, 14:05".
func (t GameTime) String() string {
	h, m := t.Clock()
	return fmt.Sprintf("Day %d, %02d:%02d", t.Day(), h, m)
}

// ParseDuration reads "30m", "2h", "1d", "1w" or a bare number of minutes.
func ParseDuration(s string) (GameTime, error) {
	var n int64
	var unit string
	if _, err := fmt.Sscanf(s, "%d%s", &n, &unit); err != nil {
		if _, err2 := fmt.Sscanf(s, "%d", &n); err2 != nil {
			return 0, fmt.Errorf("duration %q: want a number with m, h, d or w (e.g. 2h)", s)
		}
		unit = "m"
	}
	if n < 0 {
		return 0, fmt.Errorf("duration %q: must not be negative", s)
	}
	switch unit {
	case "m", "min", "minute", "minutes":
		return GameTime(n) * Minute, nil
	case "h", "hour", "hours":
		return GameTime(n) * Hour, nil
	case "d", "day", "days":
		return GameTime(n) * Day, nil
	case "w", "week", "weeks":
		return GameTime(n) * Week, nil
	}
	return 0, fmt.Errorf("duration %q: unknown unit %q; use m, h, d or w", s, unit)
}
