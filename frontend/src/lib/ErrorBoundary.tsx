// ErrorBoundary keeps one broken screen from blanking the whole window: it
// shows the error where the screen was, with a way to try again.

import { Component, type ErrorInfo, type ReactNode } from "react";

interface Props {
  children: ReactNode;
  /** What failed, for the message ("this task", "settings"). */
  what?: string;
}

interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error("jean-claude: screen crashed", error, info.componentStack);
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="jc-crash" role="alert">
        <h2>Something went wrong showing {this.props.what ?? "this screen"}.</h2>
        <pre className="jc-crash__msg">{error.message || String(error)}</pre>
        <button type="button" className="jc-btn jc-btn--secondary jc-btn--md" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </div>
    );
  }
}
