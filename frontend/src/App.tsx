export function App() {
  return <div className="app">Jean-Claude</div>;
}
