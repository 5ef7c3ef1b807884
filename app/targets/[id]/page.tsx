import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { TargetView } from "@/components/target/target-view";
import { parseViewParams } from "@/lib/view/url";
import { TargetParams } from "@/lib/schemas/params";
import { getRuntime } from "@/lib/server/runtime/runtime";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `${id} · inflight` };
}

/** One target, live: the id is checked here, the view in the URL parsed (bad values dropped), the rest is the client's. */
export default async function TargetPage({ params, searchParams }: Props) {
  const parsed = TargetParams.safeParse(await params);
  if (!parsed.success) notFound();
  const { id } = parsed.data;
  // While inflight is starting there is no runtime yet: let the client retry.
  const runtime = getRuntime();
  if (runtime && !runtime.collectors.has(id)) notFound();
  return <TargetView key={id} id={id} initial={parseViewParams(await searchParams)} />;
}
