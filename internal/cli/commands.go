package cli

import (
	"fmt"
	"io"
	"strings"
)

// Command is one subcommand of a program that has several ("mementomap
// build"): the word that selects it, what the usage shows of it, and the
// function that runs it with the arguments after the word.
type Command struct {
	Name    string // the word after the program's name: "build"
	Args    string // its flags and arguments as the usage shows them: "[-o OUT] INDEX..."
	Summary string // what it does, in one sentence or a few lines ("\n" between them)
	Run     func(args []string) error
}

// Commands is the command table of a program: its usage lists them in
// this order, and [Commands.Find] selects one by name.
type Commands []Command

// Find returns the command named name, or nil.
func (cs Commands) Find(name string) *Command {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// Names lists the commands' names in the table's order.
func (cs Commands) Names() []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}

// WriteUsage writes the command list of a usage message: a line
// "commands:", then for each command a line of two spaces, the name and
// its Args, and its Summary below it indented by six spaces. Every
// program lists its commands in this one layout, which the README test
// reads (a line of two spaces and a word names a command).
func (cs Commands) WriteUsage(w io.Writer) {
	fmt.Fprintln(w, "commands:")
	for _, c := range cs {
		line := "  " + c.Name
		if c.Args != "" {
			line += " " + c.Args
		}
		fmt.Fprintln(w, line)
		for _, s := range strings.Split(c.Summary, "\n") {
			fmt.Fprintln(w, "      "+s)
		}
	}
}

// Unknown is the usage error for a first argument that names none of the
// commands: one line that names it and lists the commands, exit status 2
// under [Status].
func (cs Commands) Unknown(name string) error {
	return Usagef("unknown command %q (commands: %s; run with -h for usage)", name, strings.Join(cs.Names(), ", "))
}

// IsWord reports whether s has the form of a command's name: a lower-case
// letter, then lower-case letters, digits and '-'. A program whose first
// argument is a command or else a file (summarize INDEX...) takes a word
// that names no command and no file as a mistyped command ([Commands.Unknown]),
// not as a missing file.
func IsWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
