import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SizingView } from "@/components/target/sizing-view";
import type { SizingRange } from "@/lib/view/sizing";
import { SizingQuery, TargetParams } from "@/lib/schemas/params";
import { getRuntime } from "@/lib/server/runtime/runtime";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The range in the URL (?range=24h, or ?from=&to=, as the API takes them); the last hour when it names none or a bad one. */
function rangeOf(search: Record<string, string | string[] | undefined>): SizingRange {
  const q = SizingQuery.safeParse(search);
  if (!q.success) return { kind: "named", range: "1h" };
  return q.data.from !== undefined && q.data.to !== undefined
    ? { kind: "custom", from: q.data.from, to: q.data.to }
    : { kind: "named", range: q.data.range ?? "1h" };
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `${id} · sizing · inflight` };
}

/** One target's sizing view (issue 41): the id checked here, the rest the client's. */
export default async function SizingPage({ params, searchParams }: Props) {
  const parsed = TargetParams.safeParse(await params);
  if (!parsed.success) notFound();
  const { id } = parsed.data;
  const runtime = getRuntime();
  const collector = runtime?.collectors.get(id);
  if (runtime && !collector) notFound();
  return <SizingView id={id} demo={collector?.info().demo ?? false} initial={rangeOf(await searchParams)} />;
}
