//go:build !linux

package main

func raiseCaps() ([]string, error) { return nil, nil }

func capsSummary([]string) string { return "n/a" }
