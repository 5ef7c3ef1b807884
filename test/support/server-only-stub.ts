// `server-only` throws outside Next's react-server build; tests run the
// server modules directly, so they get this empty module instead.
export {};
