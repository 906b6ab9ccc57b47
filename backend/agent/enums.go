package agent

// The enum lists below let Wails generate real TypeScript enums for the
// agent model (options.App.EnumBind): each entry is a Go value and the name
// of its TypeScript enum member. Keep them in sync with the constants.

// AllPartTypes lists PartType for EnumBind.
var AllPartTypes = []struct {
	Value  PartType
	TSName string
}{
	{PartText, "Text"},
	{PartReasoning, "Reasoning"},
	{PartFile, "File"},
	{PartToolUse, "ToolUse"},
	{PartToolResult, "ToolResult"},
	{PartCompact, "Compact"},
	{PartSystemStatus, "SystemStatus"},
}

// AllEventTypes lists EventType for EnumBind.
var AllEventTypes = []struct {
	Value  EventType
	TSName string
}{
	{EventMessage, "Message"},
	{EventMessageRemoved, "MessageRemoved"},
	{EventPermissionRequest, "PermissionRequest"},
	{EventQuestion, "Question"},
	{EventSessionID, "SessionID"},
	{EventSessionUpdated, "SessionUpdated"},
	{EventModeChange, "ModeChange"},
	{EventToolStateUpdate, "ToolStateUpdate"},
	{EventComplete, "Complete"},
	{EventError, "Error"},
	{EventRateLimit, "RateLimit"},
	{EventDelta, "Delta"},
}

// AllToolKinds lists ToolKind for EnumBind.
var AllToolKinds = []struct {
	Value  ToolKind
	TSName string
}{
	{ToolRead, "Read"},
	{ToolEdit, "Edit"},
	{ToolExecute, "Execute"},
	{ToolSearch, "Search"},
	{ToolFetch, "Fetch"},
	{ToolTodo, "Todo"},
	{ToolAskUser, "AskUser"},
	{ToolSubAgent, "SubAgent"},
	{ToolSkill, "Skill"},
	{ToolThink, "Think"},
	{ToolOther, "Other"},
}

// AllToolStates lists ToolState for EnumBind.
var AllToolStates = []struct {
	Value  ToolState
	TSName string
}{
	{ToolPending, "Pending"},
	{ToolRunning, "Running"},
	{ToolCompleted, "Completed"},
	{ToolError, "Error"},
	{ToolDenied, "Denied"},
	{ToolCancelled, "Cancelled"},
	{ToolInterrupted, "Interrupted"},
}

// AllInteractionModes lists InteractionMode for EnumBind.
var AllInteractionModes = []struct {
	Value  InteractionMode
	TSName string
}{
	{ModeAsk, "Ask"},
	{ModeAcceptEdits, "AcceptEdits"},
	{ModePlan, "Plan"},
	{ModeBypass, "Bypass"},
}

// AllRoles lists Role for EnumBind.
var AllRoles = []struct {
	Value  Role
	TSName string
}{
	{RoleUser, "User"},
	{RoleAssistant, "Assistant"},
	{RoleSystem, "System"},
	{RoleResult, "Result"},
}
