export namespace agent {
	
	export enum EventType {
	    Complete = "complete",
	    Delta = "delta",
	    Error = "error",
	    Message = "message",
	    MessageRemoved = "message-removed",
	    ModeChange = "mode-change",
	    PermissionRequest = "permission-request",
	    Question = "question",
	    RateLimit = "rate-limit",
	    SessionID = "session-id",
	    SessionUpdated = "session-updated",
	    ToolStateUpdate = "tool-state-update",
	}
	export enum InteractionMode {
	    AcceptEdits = "accept-edits",
	    Ask = "ask",
	    Bypass = "bypass",
	    Plan = "plan",
	}
	export enum PartType {
	    Compact = "compact",
	    File = "file",
	    Reasoning = "reasoning",
	    SystemStatus = "system-status",
	    Text = "text",
	    ToolResult = "tool-result",
	    ToolUse = "tool-use",
	}
	export enum Role {
	    Assistant = "assistant",
	    Result = "result",
	    System = "system",
	    User = "user",
	}
	export enum ToolKind {
	    AskUser = "ask-user",
	    Edit = "edit",
	    Execute = "execute",
	    Fetch = "fetch",
	    Other = "other",
	    Read = "read",
	    Search = "search",
	    Skill = "skill",
	    SubAgent = "sub-agent",
	    Think = "think",
	    Todo = "todo",
	}
	export enum ToolState {
	    Cancelled = "cancelled",
	    Completed = "completed",
	    Denied = "denied",
	    Error = "error",
	    Interrupted = "interrupted",
	    Pending = "pending",
	    Running = "running",
	}
	export class Capabilities {
	    resume: boolean;
	    fork: boolean;
	    interrupt: boolean;
	    setMode: boolean;
	    setModel: boolean;
	    compaction: boolean;
	    questions: boolean;
	    permissions: boolean;
	    modes?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Capabilities(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resume = source["resume"];
	        this.fork = source["fork"];
	        this.interrupt = source["interrupt"];
	        this.setMode = source["setMode"];
	        this.setModel = source["setModel"];
	        this.compaction = source["compaction"];
	        this.questions = source["questions"];
	        this.permissions = source["permissions"];
	        this.modes = source["modes"];
	    }
	}
	export class CostInfo {
	    costUsd: number;
	    totalCostUsd?: number;
	
	    static createFrom(source: any = {}) {
	        return new CostInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.costUsd = source["costUsd"];
	        this.totalCostUsd = source["totalCostUsd"];
	    }
	}
	export class Info {
	    name: string;
	    displayName: string;
	    capabilities: Capabilities;
	    notes?: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.displayName = source["displayName"];
	        this.capabilities = this.convertValues(source["capabilities"], Capabilities);
	        this.notes = source["notes"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ModelUsage {
	    inputTokens: number;
	    outputTokens: number;
	    cacheReadTokens?: number;
	    cacheCreationTokens?: number;
	    contextWindow?: number;
	    maxOutputTokens?: number;
	    costUsd?: number;
	
	    static createFrom(source: any = {}) {
	        return new ModelUsage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.cacheReadTokens = source["cacheReadTokens"];
	        this.cacheCreationTokens = source["cacheCreationTokens"];
	        this.contextWindow = source["contextWindow"];
	        this.maxOutputTokens = source["maxOutputTokens"];
	        this.costUsd = source["costUsd"];
	    }
	}
	export class TokenUsage {
	    inputTokens: number;
	    outputTokens: number;
	    cacheReadTokens?: number;
	    cacheCreationTokens?: number;
	    reasoningTokens?: number;
	
	    static createFrom(source: any = {}) {
	        return new TokenUsage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.cacheReadTokens = source["cacheReadTokens"];
	        this.cacheCreationTokens = source["cacheCreationTokens"];
	        this.reasoningTokens = source["reasoningTokens"];
	    }
	}
	export class PatchHunk {
	    oldStart: number;
	    oldLines: number;
	    newStart: number;
	    newLines: number;
	    lines: string[];
	
	    static createFrom(source: any = {}) {
	        return new PatchHunk(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.oldStart = source["oldStart"];
	        this.oldLines = source["oldLines"];
	        this.newStart = source["newStart"];
	        this.newLines = source["newLines"];
	        this.lines = source["lines"];
	    }
	}
	export class TodoItem {
	    id?: string;
	    content: string;
	    status: string;
	    activeForm?: string;
	    priority?: string;
	
	    static createFrom(source: any = {}) {
	        return new TodoItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.content = source["content"];
	        this.status = source["status"];
	        this.activeForm = source["activeForm"];
	        this.priority = source["priority"];
	    }
	}
	export class StructuredResult {
	    kind: string;
	    oldTodos?: TodoItem[];
	    newTodos?: TodoItem[];
	    filePath?: string;
	    content?: string;
	    originalFile?: string;
	    structuredPatch?: PatchHunk[];
	    operation?: string;
	    success?: boolean;
	    commandName?: string;
	
	    static createFrom(source: any = {}) {
	        return new StructuredResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.oldTodos = this.convertValues(source["oldTodos"], TodoItem);
	        this.newTodos = this.convertValues(source["newTodos"], TodoItem);
	        this.filePath = source["filePath"];
	        this.content = source["content"];
	        this.originalFile = source["originalFile"];
	        this.structuredPatch = this.convertValues(source["structuredPatch"], PatchHunk);
	        this.operation = source["operation"];
	        this.success = source["success"];
	        this.commandName = source["commandName"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Part {
	    type: PartType;
	    text?: string;
	    path?: string;
	    content?: any;
	    mime?: string;
	    toolId?: string;
	    toolName?: string;
	    input?: any;
	    kind?: ToolKind;
	    state?: ToolState;
	    isError?: boolean;
	    title?: string;
	    attachments?: any[];
	    structuredResult?: StructuredResult;
	    trigger?: string;
	    preTokens?: number;
	    subtype?: string;
	    status?: string;
	
	    static createFrom(source: any = {}) {
	        return new Part(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.text = source["text"];
	        this.path = source["path"];
	        this.content = source["content"];
	        this.mime = source["mime"];
	        this.toolId = source["toolId"];
	        this.toolName = source["toolName"];
	        this.input = source["input"];
	        this.kind = source["kind"];
	        this.state = source["state"];
	        this.isError = source["isError"];
	        this.title = source["title"];
	        this.attachments = source["attachments"];
	        this.structuredResult = this.convertValues(source["structuredResult"], StructuredResult);
	        this.trigger = source["trigger"];
	        this.preTokens = source["preTokens"];
	        this.subtype = source["subtype"];
	        this.status = source["status"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Message {
	    id: string;
	    role: Role;
	    parts: Part[];
	    timestamp: string;
	    cost?: CostInfo;
	    usage?: TokenUsage;
	    model?: string;
	    parentToolUseId?: string;
	    isSynthetic?: boolean;
	    isError?: boolean;
	    result?: string;
	    durationMs?: number;
	    totalCost?: CostInfo;
	    modelUsage?: Record<string, ModelUsage>;
	    metadata?: Record<string, any>;
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.role = source["role"];
	        this.parts = this.convertValues(source["parts"], Part);
	        this.timestamp = source["timestamp"];
	        this.cost = this.convertValues(source["cost"], CostInfo);
	        this.usage = this.convertValues(source["usage"], TokenUsage);
	        this.model = source["model"];
	        this.parentToolUseId = source["parentToolUseId"];
	        this.isSynthetic = source["isSynthetic"];
	        this.isError = source["isError"];
	        this.result = source["result"];
	        this.durationMs = source["durationMs"];
	        this.totalCost = this.convertValues(source["totalCost"], CostInfo);
	        this.modelUsage = this.convertValues(source["modelUsage"], ModelUsage, true);
	        this.metadata = source["metadata"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class PermissionOption {
	    id: string;
	    name: string;
	    kind: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionOption(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.kind = source["kind"];
	    }
	}
	export class QuestionOption {
	    id: string;
	    label: string;
	    description?: string;
	    placeholder?: string;
	
	    static createFrom(source: any = {}) {
	        return new QuestionOption(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.label = source["label"];
	        this.description = source["description"];
	        this.placeholder = source["placeholder"];
	    }
	}
	export class Question {
	    question: string;
	    header?: string;
	    options?: QuestionOption[];
	    multiSelect?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Question(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.question = source["question"];
	        this.header = source["header"];
	        this.options = this.convertValues(source["options"], QuestionOption);
	        this.multiSelect = source["multiSelect"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Request {
	    requestId: string;
	    toolName?: string;
	    toolId?: string;
	    input?: any;
	    description?: string;
	    suggestions?: any;
	    patterns?: string[];
	    permissionOptions?: PermissionOption[];
	    question?: string;
	    options?: QuestionOption[];
	    questions?: Question[];
	
	    static createFrom(source: any = {}) {
	        return new Request(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.requestId = source["requestId"];
	        this.toolName = source["toolName"];
	        this.toolId = source["toolId"];
	        this.input = source["input"];
	        this.description = source["description"];
	        this.suggestions = source["suggestions"];
	        this.patterns = source["patterns"];
	        this.permissionOptions = this.convertValues(source["permissionOptions"], PermissionOption);
	        this.question = source["question"];
	        this.options = this.convertValues(source["options"], QuestionOption);
	        this.questions = this.convertValues(source["questions"], Question);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace agentmgr {
	
	export class AgentSettings {
	    binaryPath: string;
	    extraArgs: string[];
	    env: Record<string, string>;
	    defaultModel: string;
	    defaultMode: agent.InteractionMode;
	    secrets?: string[];
	    disableMcp?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new AgentSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.binaryPath = source["binaryPath"];
	        this.extraArgs = source["extraArgs"];
	        this.env = source["env"];
	        this.defaultModel = source["defaultModel"];
	        this.defaultMode = source["defaultMode"];
	        this.secrets = source["secrets"];
	        this.disableMcp = source["disableMcp"];
	    }
	}
	export class Health {
	    backend: string;
	    ok: boolean;
	    detail: string;
	    durationMs: number;
	    notSignedIn?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Health(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.backend = source["backend"];
	        this.ok = source["ok"];
	        this.detail = source["detail"];
	        this.durationMs = source["durationMs"];
	        this.notSignedIn = source["notSignedIn"];
	    }
	}
	export class Model {
	    id: string;
	    name?: string;
	
	    static createFrom(source: any = {}) {
	        return new Model(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	    }
	}
	export class Problem {
	    kind: string;
	    message: string;
	    action: string;
	    actionLabel: string;
	
	    static createFrom(source: any = {}) {
	        return new Problem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.message = source["message"];
	        this.action = source["action"];
	        this.actionLabel = source["actionLabel"];
	    }
	}
	export class SignIn {
	    args: string[];
	    keyVar: string;
	
	    static createFrom(source: any = {}) {
	        return new SignIn(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.args = source["args"];
	        this.keyVar = source["keyVar"];
	    }
	}

}

export namespace gitx {
	
	export class Branch {
	    name: string;
	    commit: string;
	    current: boolean;
	    worktree?: string;
	
	    static createFrom(source: any = {}) {
	        return new Branch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.commit = source["commit"];
	        this.current = source["current"];
	        this.worktree = source["worktree"];
	    }
	}
	export class FileChange {
	    path: string;
	    oldPath?: string;
	    status: string;
	    similarity?: number;
	    oldMode?: string;
	    newMode?: string;
	    binary: boolean;
	    added: number;
	    removed: number;
	    patch: string;
	    patchOmitted?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FileChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.oldPath = source["oldPath"];
	        this.status = source["status"];
	        this.similarity = source["similarity"];
	        this.oldMode = source["oldMode"];
	        this.newMode = source["newMode"];
	        this.binary = source["binary"];
	        this.added = source["added"];
	        this.removed = source["removed"];
	        this.patch = source["patch"];
	        this.patchOmitted = source["patchOmitted"];
	    }
	}
	export class Status {
	    branch: string;
	    head: string;
	    staged: number;
	    unstaged: number;
	    untracked: number;
	    conflicted: number;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.branch = source["branch"];
	        this.head = source["head"];
	        this.staged = source["staged"];
	        this.unstaged = source["unstaged"];
	        this.untracked = source["untracked"];
	        this.conflicted = source["conflicted"];
	    }
	}

}

export namespace importer {
	
	export class Session {
	    format: string;
	    id: string;
	    path: string;
	    cwd: string;
	    startedAt: number;
	    updatedAt: number;
	    firstPrompt: string;
	    size: number;
	    model?: string;
	    taskId?: string;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.format = source["format"];
	        this.id = source["id"];
	        this.path = source["path"];
	        this.cwd = source["cwd"];
	        this.startedAt = source["startedAt"];
	        this.updatedAt = source["updatedAt"];
	        this.firstPrompt = source["firstPrompt"];
	        this.size = source["size"];
	        this.model = source["model"];
	        this.taskId = source["taskId"];
	    }
	}

}

export namespace remote {
	
	export class ConfigHost {
	    alias: string;
	    hostName: string;
	    user: string;
	    port: string;
	    proxyJump: string;
	
	    static createFrom(source: any = {}) {
	        return new ConfigHost(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.alias = source["alias"];
	        this.hostName = source["hostName"];
	        this.user = source["user"];
	        this.port = source["port"];
	        this.proxyJump = source["proxyJump"];
	    }
	}
	export class Health {
	    host: string;
	    reachable: boolean;
	    error?: string;
	    os: string;
	    arch: string;
	    rawOs: string;
	    rawArch: string;
	    git: string;
	    agents: Record<string, string>;
	    freeBytes: number;
	    latencyMs: number;
	
	    static createFrom(source: any = {}) {
	        return new Health(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.reachable = source["reachable"];
	        this.error = source["error"];
	        this.os = source["os"];
	        this.arch = source["arch"];
	        this.rawOs = source["rawOs"];
	        this.rawArch = source["rawArch"];
	        this.git = source["git"];
	        this.agents = source["agents"];
	        this.freeBytes = source["freeBytes"];
	        this.latencyMs = source["latencyMs"];
	    }
	}

}

export namespace services {
	
	export enum Indicator {
	    Busy = "busy",
	    Idle = "idle",
	    None = "none",
	    Waiting = "waiting",
	}
	export class AgentView {
	    backend: string;
	    displayName: string;
	    command: string;
	    args?: string[];
	    package?: string;
	    pinned?: string;
	    probe: string;
	    found: boolean;
	    path?: string;
	    source?: string;
	    version?: string;
	    error?: string;
	    appInstalled?: string;
	    registered: boolean;
	    capabilities: agent.Capabilities;
	    notes?: string;
	    settings: agentmgr.AgentSettings;
	    signIn: agentmgr.SignIn;
	    signedIn: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.backend = source["backend"];
	        this.displayName = source["displayName"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.package = source["package"];
	        this.pinned = source["pinned"];
	        this.probe = source["probe"];
	        this.found = source["found"];
	        this.path = source["path"];
	        this.source = source["source"];
	        this.version = source["version"];
	        this.error = source["error"];
	        this.appInstalled = source["appInstalled"];
	        this.registered = source["registered"];
	        this.capabilities = this.convertValues(source["capabilities"], agent.Capabilities);
	        this.notes = source["notes"];
	        this.settings = this.convertValues(source["settings"], agentmgr.AgentSettings);
	        this.signIn = this.convertValues(source["signIn"], agentmgr.SignIn);
	        this.signedIn = source["signedIn"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AppInfo {
	    version: string;
	    dbPath: string;
	
	    static createFrom(source: any = {}) {
	        return new AppInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.dbPath = source["dbPath"];
	    }
	}
	export class CheckRun {
	    taskId: string;
	    command: string;
	    status: string;
	    exitCode: number;
	    output: string;
	    startedAt: number;
	    endedAt: number;
	
	    static createFrom(source: any = {}) {
	        return new CheckRun(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.command = source["command"];
	        this.status = source["status"];
	        this.exitCode = source["exitCode"];
	        this.output = source["output"];
	        this.startedAt = source["startedAt"];
	        this.endedAt = source["endedAt"];
	    }
	}
	export class CompareAgent {
	    backend: string;
	    model: string;
	
	    static createFrom(source: any = {}) {
	        return new CompareAgent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.backend = source["backend"];
	        this.model = source["model"];
	    }
	}
	export class CompareGroup {
	    id: string;
	    projectId: string;
	    prompt: string;
	    createdAt: number;
	    keptTaskId: string;
	    keptAt: number;
	    taskIds: string[];
	
	    static createFrom(source: any = {}) {
	        return new CompareGroup(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.projectId = source["projectId"];
	        this.prompt = source["prompt"];
	        this.createdAt = source["createdAt"];
	        this.keptTaskId = source["keptTaskId"];
	        this.keptAt = source["keptAt"];
	        this.taskIds = source["taskIds"];
	    }
	}
	export class TaskDiff {
	    taskId: string;
	    available: boolean;
	    reason?: string;
	    base: string;
	    head: string;
	    files: gitx.FileChange[];
	    added: number;
	    removed: number;
	    at: number;
	
	    static createFrom(source: any = {}) {
	        return new TaskDiff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.available = source["available"];
	        this.reason = source["reason"];
	        this.base = source["base"];
	        this.head = source["head"];
	        this.files = this.convertValues(source["files"], gitx.FileChange);
	        this.added = source["added"];
	        this.removed = source["removed"];
	        this.at = source["at"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Task {
	    id: string;
	    projectId: string;
	    name: string;
	    prompt: string;
	    status: store.TaskStatus;
	    statusReason: string;
	    problem?: agentmgr.Problem;
	    indicator: Indicator;
	    backend: string;
	    model: string;
	    interactionMode: agent.InteractionMode;
	    sessionId: string;
	    hasUnread: boolean;
	    createdAt: number;
	    updatedAt: number;
	    startedAt?: number;
	    endedAt?: number;
	    summary: string;
	
	    static createFrom(source: any = {}) {
	        return new Task(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.projectId = source["projectId"];
	        this.name = source["name"];
	        this.prompt = source["prompt"];
	        this.status = source["status"];
	        this.statusReason = source["statusReason"];
	        this.problem = this.convertValues(source["problem"], agentmgr.Problem);
	        this.indicator = source["indicator"];
	        this.backend = source["backend"];
	        this.model = source["model"];
	        this.interactionMode = source["interactionMode"];
	        this.sessionId = source["sessionId"];
	        this.hasUnread = source["hasUnread"];
	        this.createdAt = source["createdAt"];
	        this.updatedAt = source["updatedAt"];
	        this.startedAt = source["startedAt"];
	        this.endedAt = source["endedAt"];
	        this.summary = source["summary"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CompareMember {
	    task: Task;
	    durationMs: number;
	    costUsd: number;
	    inputTokens: number;
	    outputTokens: number;
	    diff: TaskDiff;
	    check?: CheckRun;
	    worktreePath: string;
	    branch: string;
	
	    static createFrom(source: any = {}) {
	        return new CompareMember(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.task = this.convertValues(source["task"], Task);
	        this.durationMs = source["durationMs"];
	        this.costUsd = source["costUsd"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.diff = this.convertValues(source["diff"], TaskDiff);
	        this.check = this.convertValues(source["check"], CheckRun);
	        this.worktreePath = source["worktreePath"];
	        this.branch = source["branch"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CompareView {
	    group: CompareGroup;
	    checkCommand: string;
	    members: CompareMember[];
	
	    static createFrom(source: any = {}) {
	        return new CompareView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.group = this.convertValues(source["group"], CompareGroup);
	        this.checkCommand = source["checkCommand"];
	        this.members = this.convertValues(source["members"], CompareMember);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CreateCompareInput {
	    projectId: string;
	    prompt: string;
	    name: string;
	    interactionMode: string;
	    agents: CompareAgent[];
	
	    static createFrom(source: any = {}) {
	        return new CreateCompareInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.projectId = source["projectId"];
	        this.prompt = source["prompt"];
	        this.name = source["name"];
	        this.interactionMode = source["interactionMode"];
	        this.agents = this.convertValues(source["agents"], CompareAgent);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CreateTaskInput {
	    projectId: string;
	    prompt: string;
	    name: string;
	    backend: string;
	    model: string;
	    interactionMode: string;
	
	    static createFrom(source: any = {}) {
	        return new CreateTaskInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.projectId = source["projectId"];
	        this.prompt = source["prompt"];
	        this.name = source["name"];
	        this.backend = source["backend"];
	        this.model = source["model"];
	        this.interactionMode = source["interactionMode"];
	    }
	}
	export class DBHealth {
	    checked: boolean;
	    ok: boolean;
	    problems: string[];
	
	    static createFrom(source: any = {}) {
	        return new DBHealth(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.checked = source["checked"];
	        this.ok = source["ok"];
	        this.problems = source["problems"];
	    }
	}
	export class ForkInput {
	    taskId: string;
	    messageId: string;
	    backend: string;
	    prompt: string;
	
	    static createFrom(source: any = {}) {
	        return new ForkInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.messageId = source["messageId"];
	        this.backend = source["backend"];
	        this.prompt = source["prompt"];
	    }
	}
	export class Host {
	    name: string;
	    fromConfig: boolean;
	    added: boolean;
	    config: remote.ConfigHost;
	    health?: remote.Health;
	    checkedAt: number;
	
	    static createFrom(source: any = {}) {
	        return new Host(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.fromConfig = source["fromConfig"];
	        this.added = source["added"];
	        this.config = this.convertValues(source["config"], remote.ConfigHost);
	        this.health = this.convertValues(source["health"], remote.Health);
	        this.checkedAt = source["checkedAt"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HostAgent {
	    command: string;
	    name: string;
	    package: string;
	
	    static createFrom(source: any = {}) {
	        return new HostAgent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.command = source["command"];
	        this.name = source["name"];
	        this.package = source["package"];
	    }
	}
	export class InboxItem {
	    key: string;
	    kind: string;
	    taskId: string;
	    taskName: string;
	    projectId: string;
	    projectName: string;
	    agentBackend: string;
	    status: string;
	    requestId?: string;
	    request?: agent.Request;
	    plan?: string;
	    summary: string;
	    at: number;
	
	    static createFrom(source: any = {}) {
	        return new InboxItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.kind = source["kind"];
	        this.taskId = source["taskId"];
	        this.taskName = source["taskName"];
	        this.projectId = source["projectId"];
	        this.projectName = source["projectName"];
	        this.agentBackend = source["agentBackend"];
	        this.status = source["status"];
	        this.requestId = source["requestId"];
	        this.request = this.convertValues(source["request"], agent.Request);
	        this.plan = source["plan"];
	        this.summary = source["summary"];
	        this.at = source["at"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class InboxPayload {
	    items: InboxItem[];
	    count: number;
	
	    static createFrom(source: any = {}) {
	        return new InboxPayload(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.items = this.convertValues(source["items"], InboxItem);
	        this.count = source["count"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class InstallResult {
	    ok: boolean;
	    error?: string;
	    log: string;
	    agent: AgentView;
	
	    static createFrom(source: any = {}) {
	        return new InstallResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.error = source["error"];
	        this.log = source["log"];
	        this.agent = this.convertValues(source["agent"], AgentView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class KeepOutcome {
	    kept: string;
	    merge: string;
	    into: string;
	    removed: string[];
	    warning?: string;
	
	    static createFrom(source: any = {}) {
	        return new KeepOutcome(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kept = source["kept"];
	        this.merge = source["merge"];
	        this.into = source["into"];
	        this.removed = source["removed"];
	        this.warning = source["warning"];
	    }
	}
	export class MergeInput {
	    squash: boolean;
	    noFastForward: boolean;
	    message: string;
	    removeWorktree: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MergeInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.squash = source["squash"];
	        this.noFastForward = source["noFastForward"];
	        this.message = source["message"];
	        this.removeWorktree = source["removeWorktree"];
	    }
	}
	export class TaskGitInfo {
	    taskId: string;
	    projectId: string;
	    isGitRepo: boolean;
	    useWorktree: boolean;
	    useWorktreeOverride?: boolean;
	    sourceBranch: string;
	    worktreePath: string;
	    branchName: string;
	    baseCommit: string;
	    headCommit: string;
	    mergeCommit: string;
	    mergedAt?: number;
	    cwd: string;
	    notice?: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskGitInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.projectId = source["projectId"];
	        this.isGitRepo = source["isGitRepo"];
	        this.useWorktree = source["useWorktree"];
	        this.useWorktreeOverride = source["useWorktreeOverride"];
	        this.sourceBranch = source["sourceBranch"];
	        this.worktreePath = source["worktreePath"];
	        this.branchName = source["branchName"];
	        this.baseCommit = source["baseCommit"];
	        this.headCommit = source["headCommit"];
	        this.mergeCommit = source["mergeCommit"];
	        this.mergedAt = source["mergedAt"];
	        this.cwd = source["cwd"];
	        this.notice = source["notice"];
	    }
	}
	export class MergeOutcome {
	    commit: string;
	    fastForward: boolean;
	    squashed: boolean;
	    worktree?: string;
	    into: string;
	    worktreeRemoved: boolean;
	    task: TaskGitInfo;
	    warning?: string;
	
	    static createFrom(source: any = {}) {
	        return new MergeOutcome(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.commit = source["commit"];
	        this.fastForward = source["fastForward"];
	        this.squashed = source["squashed"];
	        this.worktree = source["worktree"];
	        this.into = source["into"];
	        this.worktreeRemoved = source["worktreeRemoved"];
	        this.task = this.convertValues(source["task"], TaskGitInfo);
	        this.warning = source["warning"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MessagePage {
	    messages: agent.Message[];
	    cursor: number;
	    hasOlder: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MessagePage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.messages = this.convertValues(source["messages"], agent.Message);
	        this.cursor = source["cursor"];
	        this.hasOlder = source["hasOlder"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PendingRequest {
	    taskId: string;
	    requestId: string;
	    kind: string;
	    request: agent.Request;
	    createdAt: number;
	
	    static createFrom(source: any = {}) {
	        return new PendingRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.requestId = source["requestId"];
	        this.kind = source["kind"];
	        this.request = this.convertValues(source["request"], agent.Request);
	        this.createdAt = source["createdAt"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RuleSpec {
	    matchKind: string;
	    pattern: string;
	
	    static createFrom(source: any = {}) {
	        return new RuleSpec(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.matchKind = source["matchKind"];
	        this.pattern = source["pattern"];
	    }
	}
	export class PermissionAnswer {
	    behavior: string;
	    scope: string;
	    message?: string;
	    interrupt?: boolean;
	    rule?: RuleSpec;
	
	    static createFrom(source: any = {}) {
	        return new PermissionAnswer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.behavior = source["behavior"];
	        this.scope = source["scope"];
	        this.message = source["message"];
	        this.interrupt = source["interrupt"];
	        this.rule = this.convertValues(source["rule"], RuleSpec);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PermissionDecision {
	    id: number;
	    taskId: string;
	    requestId: string;
	    toolId?: string;
	    toolName: string;
	    input?: string;
	    behavior: string;
	    scope: string;
	    source: string;
	    ruleId?: string;
	    label: string;
	    message?: string;
	    createdAt: number;
	
	    static createFrom(source: any = {}) {
	        return new PermissionDecision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.taskId = source["taskId"];
	        this.requestId = source["requestId"];
	        this.toolId = source["toolId"];
	        this.toolName = source["toolName"];
	        this.input = source["input"];
	        this.behavior = source["behavior"];
	        this.scope = source["scope"];
	        this.source = source["source"];
	        this.ruleId = source["ruleId"];
	        this.label = source["label"];
	        this.message = source["message"];
	        this.createdAt = source["createdAt"];
	    }
	}
	export class PermissionRule {
	    id: string;
	    scope: string;
	    projectId: string;
	    taskId?: string;
	    toolName: string;
	    matchKind: string;
	    pattern: string;
	    subjectType: string;
	    createdAt: number;
	
	    static createFrom(source: any = {}) {
	        return new PermissionRule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.scope = source["scope"];
	        this.projectId = source["projectId"];
	        this.taskId = source["taskId"];
	        this.toolName = source["toolName"];
	        this.matchKind = source["matchKind"];
	        this.pattern = source["pattern"];
	        this.subjectType = source["subjectType"];
	        this.createdAt = source["createdAt"];
	    }
	}
	export class Project {
	    id: string;
	    name: string;
	    path: string;
	    isGitRepo: boolean;
	    defaultBackend: string;
	    defaultModel: string;
	    createdAt: number;
	    updatedAt: number;
	
	    static createFrom(source: any = {}) {
	        return new Project(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.path = source["path"];
	        this.isGitRepo = source["isGitRepo"];
	        this.defaultBackend = source["defaultBackend"];
	        this.defaultModel = source["defaultModel"];
	        this.createdAt = source["createdAt"];
	        this.updatedAt = source["updatedAt"];
	    }
	}
	export class ProjectGitSettings {
	    projectId: string;
	    isGitRepo: boolean;
	    worktreesEnabled: boolean;
	    worktreeRoot: string;
	    defaultWorktreeRoot: string;
	    defaultSourceBranch: string;
	
	    static createFrom(source: any = {}) {
	        return new ProjectGitSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.projectId = source["projectId"];
	        this.isGitRepo = source["isGitRepo"];
	        this.worktreesEnabled = source["worktreesEnabled"];
	        this.worktreeRoot = source["worktreeRoot"];
	        this.defaultWorktreeRoot = source["defaultWorktreeRoot"];
	        this.defaultSourceBranch = source["defaultSourceBranch"];
	    }
	}
	export class ProjectHost {
	    projectId: string;
	    host: string;
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new ProjectHost(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.projectId = source["projectId"];
	        this.host = source["host"];
	        this.path = source["path"];
	    }
	}
	export class ProjectSetupSettings {
	    projectId: string;
	    copyGlobs: string;
	    setupCommand: string;
	    setupRequired: boolean;
	    setupUsesShell: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ProjectSetupSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.projectId = source["projectId"];
	        this.copyGlobs = source["copyGlobs"];
	        this.setupCommand = source["setupCommand"];
	        this.setupRequired = source["setupRequired"];
	        this.setupUsesShell = source["setupUsesShell"];
	    }
	}
	export class QuestionAnswer {
	    id: number;
	    taskId: string;
	    requestId: string;
	    toolId?: string;
	    request: agent.Request;
	    answers: string[][];
	    createdAt: number;
	
	    static createFrom(source: any = {}) {
	        return new QuestionAnswer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.taskId = source["taskId"];
	        this.requestId = source["requestId"];
	        this.toolId = source["toolId"];
	        this.request = this.convertValues(source["request"], agent.Request);
	        this.answers = source["answers"];
	        this.createdAt = source["createdAt"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class QueuedMessage {
	    id: string;
	    taskId: string;
	    text: string;
	    position: number;
	    createdAt: number;
	
	    static createFrom(source: any = {}) {
	        return new QueuedMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.taskId = source["taskId"];
	        this.text = source["text"];
	        this.position = source["position"];
	        this.createdAt = source["createdAt"];
	    }
	}
	
	export class SearchHit {
	    rowId: number;
	    taskId: string;
	    taskName: string;
	    taskPrompt: string;
	    taskSummary: string;
	    projectId: string;
	    projectName: string;
	    agent: string;
	    messageId: string;
	    messageIndex: number;
	    role: string;
	    createdAt: number;
	    snippet: string;
	
	    static createFrom(source: any = {}) {
	        return new SearchHit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rowId = source["rowId"];
	        this.taskId = source["taskId"];
	        this.taskName = source["taskName"];
	        this.taskPrompt = source["taskPrompt"];
	        this.taskSummary = source["taskSummary"];
	        this.projectId = source["projectId"];
	        this.projectName = source["projectName"];
	        this.agent = source["agent"];
	        this.messageId = source["messageId"];
	        this.messageIndex = source["messageIndex"];
	        this.role = source["role"];
	        this.createdAt = source["createdAt"];
	        this.snippet = source["snippet"];
	    }
	}
	export class SearchInput {
	    text: string;
	    projectId: string;
	    agent: string;
	    role: string;
	    from: number;
	    to: number;
	    limit: number;
	    before: number;
	
	    static createFrom(source: any = {}) {
	        return new SearchInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.projectId = source["projectId"];
	        this.agent = source["agent"];
	        this.role = source["role"];
	        this.from = source["from"];
	        this.to = source["to"];
	        this.limit = source["limit"];
	        this.before = source["before"];
	    }
	}
	export class SignInInfo {
	    id: string;
	    command: string;
	
	    static createFrom(source: any = {}) {
	        return new SignInInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.command = source["command"];
	    }
	}
	
	
	
	export class TaskGitOptions {
	    useWorktree?: boolean;
	    sourceBranch: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskGitOptions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.useWorktree = source["useWorktree"];
	        this.sourceBranch = source["sourceBranch"];
	    }
	}
	export class TaskGitStatus {
	    taskId: string;
	    projectId: string;
	    isGitRepo: boolean;
	    useWorktree: boolean;
	    useWorktreeOverride?: boolean;
	    sourceBranch: string;
	    worktreePath: string;
	    branchName: string;
	    baseCommit: string;
	    headCommit: string;
	    mergeCommit: string;
	    mergedAt?: number;
	    cwd: string;
	    notice?: string;
	    hasWorktree: boolean;
	    status: gitx.Status;
	    clean: boolean;
	    commitsAhead: number;
	    canCommit: boolean;
	    canMerge: boolean;
	    mergeBlocked?: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskGitStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.projectId = source["projectId"];
	        this.isGitRepo = source["isGitRepo"];
	        this.useWorktree = source["useWorktree"];
	        this.useWorktreeOverride = source["useWorktreeOverride"];
	        this.sourceBranch = source["sourceBranch"];
	        this.worktreePath = source["worktreePath"];
	        this.branchName = source["branchName"];
	        this.baseCommit = source["baseCommit"];
	        this.headCommit = source["headCommit"];
	        this.mergeCommit = source["mergeCommit"];
	        this.mergedAt = source["mergedAt"];
	        this.cwd = source["cwd"];
	        this.notice = source["notice"];
	        this.hasWorktree = source["hasWorktree"];
	        this.status = this.convertValues(source["status"], gitx.Status);
	        this.clean = source["clean"];
	        this.commitsAhead = source["commitsAhead"];
	        this.canCommit = source["canCommit"];
	        this.canMerge = source["canMerge"];
	        this.mergeBlocked = source["mergeBlocked"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TaskLifetime {
	    keepRunning: boolean;
	    onQuit: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskLifetime(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.keepRunning = source["keepRunning"];
	        this.onQuit = source["onQuit"];
	    }
	}
	export class TaskLimit {
	    taskId: string;
	    resetAt: number;
	    message: string;
	    kind: string;
	    state: string;
	    detectedAt: number;
	    retriedAt: number;
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskLimit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.resetAt = source["resetAt"];
	        this.message = source["message"];
	        this.kind = source["kind"];
	        this.state = source["state"];
	        this.detectedAt = source["detectedAt"];
	        this.retriedAt = source["retriedAt"];
	        this.error = source["error"];
	    }
	}
	export class TaskLink {
	    taskId: string;
	    name: string;
	    kind: string;
	    backend: string;
	    status: string;
	    messageId?: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskLink(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.backend = source["backend"];
	        this.status = source["status"];
	        this.messageId = source["messageId"];
	    }
	}
	export class TaskLinks {
	    parent?: TaskLink;
	    children: TaskLink[];
	
	    static createFrom(source: any = {}) {
	        return new TaskLinks(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.parent = this.convertValues(source["parent"], TaskLink);
	        this.children = this.convertValues(source["children"], TaskLink);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TaskTerminal {
	    id: string;
	    owner: string;
	    title: string;
	    cols: number;
	    rows: number;
	    startedAt: number;
	    taskId: string;
	    cwd: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskTerminal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.owner = source["owner"];
	        this.title = source["title"];
	        this.cols = source["cols"];
	        this.rows = source["rows"];
	        this.startedAt = source["startedAt"];
	        this.taskId = source["taskId"];
	        this.cwd = source["cwd"];
	    }
	}
	export class UsageRow {
	    day: string;
	    projectId: string;
	    projectName: string;
	    agent: string;
	    costUsd: number;
	    inputTokens: number;
	    outputTokens: number;
	    turns: number;
	
	    static createFrom(source: any = {}) {
	        return new UsageRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.day = source["day"];
	        this.projectId = source["projectId"];
	        this.projectName = source["projectName"];
	        this.agent = source["agent"];
	        this.costUsd = source["costUsd"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.turns = source["turns"];
	    }
	}
	export class WorkspaceRemoval {
	    worktreeRemoved: boolean;
	    branchDeleted: boolean;
	    keptBranch?: string;
	    reason?: string;
	
	    static createFrom(source: any = {}) {
	        return new WorkspaceRemoval(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.worktreeRemoved = source["worktreeRemoved"];
	        this.branchDeleted = source["branchDeleted"];
	        this.keptBranch = source["keptBranch"];
	        this.reason = source["reason"];
	    }
	}

}

export namespace store {
	
	export enum TaskStatus {
	    Completed = "completed",
	    Created = "created",
	    Errored = "errored",
	    Interrupted = "interrupted",
	    Running = "running",
	    Waiting = "waiting",
	}

}

export namespace term {
	
	export class Snapshot {
	    id: string;
	    data: number[];
	    end: number;
	
	    static createFrom(source: any = {}) {
	        return new Snapshot(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.data = source["data"];
	        this.end = source["end"];
	    }
	}

}

