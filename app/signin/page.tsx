import { safeNext } from "@/lib/server/http/auth";

export const dynamic = "force-dynamic";

export default async function SignIn({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNext(typeof params.next === "string" ? params.next : null);
  const failed = params.error !== undefined;
  return (
    <main className="mx-auto mt-24 max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="text-lg font-semibold">inflight</h1>
      <p className="mt-1 text-sm text-slate-600">This dashboard needs its access token (INFLIGHT_AUTH_TOKEN).</p>
      <form method="post" action="/api/auth/signin" className="mt-4 space-y-3">
        <input type="hidden" name="next" value={next} />
        <label className="block text-sm font-medium" htmlFor="token">
          Token
        </label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          required
          className="w-full rounded border border-slate-300 px-2 py-1.5"
        />
        {failed && <p className="text-sm text-red-700">That token is not the right one.</p>}
        <button type="submit" className="w-full rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white">
          Sign in
        </button>
      </form>
    </main>
  );
}
