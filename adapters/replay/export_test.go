package replay

// ClaudeOptions lets the external tests build a Claude Code replay.
var ClaudeOptions = claudeOptions
