// The view controls' button looks, shared by the range pickers.
export const BUTTON = "rounded px-2 py-0.5 ring-1 ring-inset";
export const PLAIN = `${BUTTON} bg-white text-slate-700 ring-slate-300 hover:bg-slate-100`;
export const PRESSED = `${BUTTON} bg-slate-800 text-white ring-slate-800`;
