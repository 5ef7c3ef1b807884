const SHORT_QUERY = 90;

/** Query text as text (never HTML): the start, and the whole on demand. Each text is one text node. */
export function QueryText({ text }: { text: string }) {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= SHORT_QUERY) {
    return (
      <code className="block break-words font-mono text-xs text-slate-800" data-testid="query-text">
        {flat}
      </code>
    );
  }
  return (
    <details onClick={(e) => e.stopPropagation()}>
      <summary className="cursor-pointer list-none font-mono text-xs text-slate-800">
        <span data-testid="query-text">{`${flat.slice(0, SHORT_QUERY)}…`}</span> <span className="font-sans text-blue-700">full text</span>
      </summary>
      <pre
        className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-xs"
        data-testid="query-text"
      >
        {text}
      </pre>
    </details>
  );
}
