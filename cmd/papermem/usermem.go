package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/papermem/papermem"
	"github.com/papermem/papermem/api"
	"github.com/papermem/papermem/hosted"
	"github.com/spf13/cobra"
)

// Per-user memory: the notes of the user --user names.

// perUser annotates the commands that act for --user.
var perUser = map[string]string{perUserCommand: "true"}

func rememberCmd(t *target, stdout io.Writer) *cobra.Command {
	var req api.RememberRequest
	c := &cobra.Command{
		Use:         "remember TEXT",
		Annotations: perUser,
		Short:       "Remember a note for the user (--user); the same --key replaces it",
		Args:        wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Text = args[0]
			if strings.HasPrefix(req.Key, hosted.KeyPrefix) && len(req.Key) >= len(hosted.KeyPrefix)+40 {
				// An API key given as the global --key of earlier versions,
				// after the command's name.
				return &usageError{err: errors.New("--key is the note's key, and this one is an API key: pass the API key as --api-key (or $PAPERMEM_KEY)")}
			}
			return withMemory(cmd, t, writes, func(ctx context.Context, m memory) error {
				r, err := m.Remember(ctx, req)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "remembered as %q (node %d)\n", r.Key, r.NodeID)
				return nil
			})
		},
	}
	c.Flags().StringVar(&req.Key, "key", "", "the note's key; the same key replaces it (default: derived from the text)")
	c.Flags().StringVar(&req.Domain, "domain", "", "topic area")
	c.Flags().StringArrayVar(&req.Tags, "tag", nil, "a label (repeatable)")
	c.Flags().StringVar(&req.OccurredAt, "occurred-at", "", "ISO-8601 date or time of the event")
	return c
}

func recallUserCmd(t *target, stdout io.Writer) *cobra.Command {
	var budget int
	var asJSON bool
	var stop stopFlags
	c := &cobra.Command{
		Use:         "recall-user QUESTION",
		Annotations: perUser,
		Short:       "Recall the user's notes (--user) that answer a question, each with its key",
		Args:        wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := api.UserRecallRequest{Question: args[0], Fill: stop.fill}
			if cmd.Flags().Changed("budget") {
				req.BudgetTokens = &budget
			}
			if cmd.Flags().Changed("min-tokens") {
				req.MinTokens = &stop.minTokens
			}
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				res, err := m.RecallUser(ctx, req)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, res)
				}
				printSpans(stdout, res, "None of the user's notes answers this.")
				return nil
			})
		},
	}
	c.Flags().IntVar(&budget, "budget", papermem.DefaultBudgetTokens, "token budget of the answer")
	c.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON instead of text")
	stop.add(c)
	return c
}

func forgetCmd(t *target, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:         "forget KEY",
		Annotations: perUser,
		Short:       "Forget the user's note (--user) with this key",
		Args:        wantArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withMemory(cmd, t, reads, func(ctx context.Context, m memory) error {
				if _, err := m.Forget(ctx, args[0]); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "forgot %q\n", args[0])
				return nil
			})
		},
	}
}
