import { sparkLines } from "@/lib/view/fleet";

const WIDTH = 120;
const HEIGHT = 24;
/** Room for the stroke at the top and bottom edges. */
const PAD = 2;

/** Max async reads in flight per second over the last minute: a line with gaps where nothing was sampled. */
export function Sparkline({ values }: { values: readonly (number | null)[] }) {
  const spark = sparkLines(values, WIDTH, HEIGHT - 2 * PAD);
  const label = spark.samples ? `peak ${spark.peak} async in flight over the last minute` : "no sample in the last minute";
  return (
    <div className="flex items-center gap-2">
      <svg
        width={WIDTH}
        height={HEIGHT}
        viewBox={`0 ${-PAD} ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={label}
        data-testid="fleet-spark"
        data-samples={spark.samples}
        data-peak={spark.peak}
        className="block overflow-visible"
      >
        <title>{label}</title>
        <line x1={0} x2={WIDTH} y1={HEIGHT - 2 * PAD} y2={HEIGHT - 2 * PAD} stroke="#e2e8f0" strokeWidth={1} />
        {spark.lines.map((points, i) => (
          <polyline key={i} points={points} fill="none" stroke="#2563eb" strokeWidth={1.5} strokeLinejoin="round" />
        ))}
        {spark.dots.map((d) => (
          <circle key={d.x} cx={d.x} cy={d.y} r={1.5} fill="#2563eb" />
        ))}
      </svg>
      <span className="text-xs tabular-nums text-slate-500">{spark.samples ? `peak ${spark.peak}` : "no samples"}</span>
    </div>
  );
}
