namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>
/// `esp record --runtime 8.0,10.0 --launches 3`: one recording per runtime and launch, interleaved (8.0-1, 10.0-1,
/// 8.0-2, 10.0-2, ...) so that a slow spell of the shared machine lands on both sides instead of becoming a runtime
/// difference; each in its own folder under --out, named RUNTIME-LAUNCH, ready for `esp diff A1 A2 .. vs B1 B2 ..`.
/// </summary>
public static class LaunchPlan
{
    public sealed record Launch(BenchmarkRuntime? Runtime, int Number, string Folder);

    /// <summary>Whether the options ask for more than one recording (then --out is the parent of their folders).</summary>
    public static bool IsSeveral(IReadOnlyList<BenchmarkRuntime> runtimes, int launches) => runtimes.Count > 1 || launches > 1;

    public static IReadOnlyList<Launch> Plan(IReadOnlyList<BenchmarkRuntime> runtimes, int launches, string parent)
    {
        IReadOnlyList<BenchmarkRuntime?> sides = runtimes.Count == 0 ? [null] : [.. runtimes];
        var duplicate = runtimes.GroupBy(r => r.Requested, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1);
        if (duplicate is not null) throw new Common.UsageException($"--runtime lists {duplicate.Key} twice");
        return [.. Enumerable.Range(1, launches).SelectMany(n => sides.Select(r => new Launch(r, n, Path.Combine(parent, $"{r?.Requested ?? "launch"}-{n}"))))];
    }

    /// <summary>The diff of the first two runtimes' launches, baseline first, as a user would type it.</summary>
    public static IReadOnlyList<string> DiffArguments(IReadOnlyList<Launch> launches)
    {
        var sides = launches.GroupBy(l => l.Runtime?.Requested).Take(2).Select(g => g.Select(l => l.Folder).ToList()).ToList();
        return sides.Count < 2 ? [] : [.. sides[0], "vs", .. sides[1]];
    }
}
