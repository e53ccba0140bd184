// Package count writes a number with its noun in English, for the
// messages, notes and pages of the module's packages and programs.
package count

import "strconv"

// Of is n followed by one when n is 1 and by many otherwise: Of(1,
// "memento", "mementos") is "1 memento", Of(3, "content type", "content
// types") is "3 content types", Of(0, "page", "pages") is "0 pages".
func Of(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
