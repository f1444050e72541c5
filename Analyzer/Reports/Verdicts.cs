using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>One cause of a case's time: ms per call, its share of the worker's time, and who is responsible.</summary>
/// <param name="Name">What the time was ("Custom attributes (Reflection)", "GC", "YamlDotNet code", "off CPU: lock contention").</param>
/// <param name="Detail">Who is responsible, largest first: APIs and their callers, the allocations, the lock's site; as many as fit a line.</param>
/// <param name="Tags">The stack tags it adds up (empty for off-CPU and lock causes).</param>
/// <param name="OwnCode">The serializer's own code (a part of it, by namespace): what it is for, not overhead.</param>
internal sealed record Cause(string Name, double Ms, double Share, IReadOnlyList<string> Detail, IReadOnlyList<string> Tags, bool OwnCode = false)
{
    /// <summary>The kind of a cause with no stack tag: the worker's time off the CPU by reason, and lock waits.</summary>
    public const string OffCpu = "off CPU";
    /// <summary>The kind of code no stack tag names: an app's library by module, the harness, untagged samples.</summary>
    public const string OtherCode = "other code";

    /// <summary>
    /// What kind of time it is, as the picture of the HTML report colors it: the serializer's code
    /// (<see cref="StackTagGroups.SerializerCode"/>), the first level of its stack tags (Reflection, GC, Native runtime,
    /// Kernel...), <see cref="OtherCode"/> or <see cref="OffCpu"/>.
    /// </summary>
    public string Kind => OwnCode ? StackTagGroups.SerializerCode
        : Tags.Count == 0 ? OffCpu
        : StackTagGroups.GroupOf(Tags[0]) is var g && g == StackTagGroups.Other ? OtherCode : g;

    /// <summary>The kinds in the order a bar stacks them: the serializer's own work first, waiting last.</summary>
    private static readonly string[] Kinds = [StackTagGroups.SerializerCode, StackTagGroups.Reflection, StackTagGroups.Activator, StackTagGroups.Gc,
        StackTagGroups.Jit, StackTags.SerializerStackTagsGenerator.ExceptionsTag, "Native runtime", "Kernel", OtherCode, OffCpu];

    /// <summary>A kind's place in a bar; a kind not listed (a custom tag's first level) goes just before <see cref="OtherCode"/>.</summary>
    public static double KindRank(string kind) => Array.IndexOf(Kinds, kind) is var i and >= 0 ? i : Array.IndexOf(Kinds, OtherCode) - 0.5;
}

/// <summary>
/// Why one case (serializer, operation, N) takes its time, first: its time per operation against the fastest of its
/// operation and N, its biggest causes and the findings about it. The causes come from the same charge as the
/// tables: the "where the time goes" tags (ms per call, as there), the worker's off-CPU time by reason, lock waits.
/// </summary>
internal sealed record Verdict(CaseSummary Case, string? Fastest, double FastestMs, double OnCpuMs, double OffCpuMs,
    IReadOnlyList<Cause> Causes, IReadOnlyList<string> Also, IReadOnlyList<Finding> Findings)
{
    /// <summary>The process's other threads' CPU per call in the case's windows (kernel session; 0 when unknown), beside the causes.</summary>
    public double OtherThreadsMs { get; init; }

    /// <summary>
    /// The worker's time off the CPU waiting for one (preempted, or runnable with none free) per call: the machine's
    /// load, left out of <see cref="OffCpuMs"/>, which with it makes the tables' off-CPU time.
    /// </summary>
    public double CpuWaitMs { get; init; }

    /// <summary>The shares' denominator: the worker's on-CPU time plus, with a kernel session, its time off the CPU not waiting for one.</summary>
    public double TimeMs => OnCpuMs + OffCpuMs;

    /// <summary>Every cause, however small, largest first: <see cref="Causes"/> are the first of them. They add up to <see cref="TimeMs"/>.</summary>
    public IReadOnlyList<Cause> AllCauses { get; init; } = [];

    /// <summary>The time split by kind of cause (<see cref="Cause.Kind"/>), in <see cref="Cause.KindRank"/> order: the HTML report's bar of this case.</summary>
    public IReadOnlyList<(string Kind, double Ms)> ByKind() =>
        [.. AllCauses.GroupBy(c => c.Kind).Select(g => (Kind: g.Key, Ms: g.Sum(c => c.Ms))).Where(k => k.Ms > 0)
            .OrderBy(k => Cause.KindRank(k.Kind)).ThenBy(k => k.Kind, StringComparer.Ordinal)];
}

/// <summary>Builds the verdicts of an analysis (<see cref="Verdict"/>) and writes them as text lines and JSON.</summary>
internal static class Verdicts
{
    /// <summary>Causes shown per case.</summary>
    public const int MaxCauses = 3;
    /// <summary>Causes under this share of the time are not named.</summary>
    private const double MinShare = 0.01;

    public static IReadOnlyList<Verdict> Of(TraceAnalysis analysis, string? serializer = null, int? objects = null)
    {
        var summaries = analysis.Cases.Where(s => s.Runs > 0).ToList();
        // A case alone at its operation and N (--serializers X) is compared with nothing: not "the fastest".
        var fastest = summaries.GroupBy(s => (s.Operation, s.Objects)).Where(g => g.Count() > 1)
            .Select(g => (g.Key, Min: g.Where(s => !RankRule.IsFailedRoundTrip(s.RoundTrip)).MinBy(s => s.MeanDurationMs)))
            .Where(x => x.Min is not null).ToDictionary(x => x.Key, x => x.Min!);
        return [.. summaries
            .Where(s => (serializer is null || string.Equals(s.Serializer, serializer, StringComparison.OrdinalIgnoreCase)) && (objects is null || s.Objects == objects))
            .Select(s => Build(analysis, s, fastest.GetValueOrDefault((s.Operation, s.Objects))))];
    }

    private static Verdict Build(TraceAnalysis analysis, CaseSummary s, CaseSummary? fastest)
    {
        var key = (s.Serializer, s.Operation, s.Objects);
        var runs = analysis.Runs.Where(r => r.IsMeasured && (r.Key.Serializer, r.Key.Operation, r.Key.Objects) == key).ToList();
        var onCpu = s.CpuKnown ? s.Tags.Values.Sum() : 0;
        var off = s.OffCpuMs ?? 0;
        var time = onCpu + off;
        var sites = analysis.TagSites.GetValueOrDefault(key) ?? new Dictionary<TagSite, double>();
        var causes = new List<Cause>();
        foreach (var group in s.Tags.GroupBy(t => CauseName(t.Key, s.Serializer)).Where(g => g.Key is not null))
        {
            var tags = group.Select(t => t.Key).ToList();
            var ms = group.Sum(t => t.Value);
            if (group.Key == Untagged)
            {
                causes.AddRange(ByLibrary(sites, tags, ms));
                continue;
            }
            if (StackTagGroups.GroupOf(tags[0]) == StackTagGroups.SerializerCode)
            {
                causes.AddRange(ByNamespace(sites, tags, ms, s.Serializer));
                continue;
            }
            var name = Named(group.Key!, group);
            // Memory clearing is the allocator's work (the GC hands out zeroed memory): said with what was allocated
            // when it is a tenth of the cause or more, named first or not.
            IReadOnlyList<string> detail = group.Key == StackTagGroups.Gc ? [Allocations(s, runs)]
                : group.Any(t => t.Key.EndsWith(MemoryClearing, StringComparison.Ordinal) && t.Value >= 0.1 * ms)
                    ? [.. Sites(sites, tags, ms).Take(2), Allocations(s, runs)]
                    : Sites(sites, tags, ms);
            causes.Add(new Cause(name, ms, 0, detail, tags));
        }
        // Waiting for a CPU (preempted, or woken with none free) is the machine's load, not the serializer's time.
        var cpuWait = s.OffCpuByReason.Where(r => r.Key is OffCpuReason.Preempted or OffCpuReason.Ready).Sum(r => r.Value);
        off = Math.Max(0, off - cpuWait); // the waits are part of the off-CPU time: rounding must not leave it below 0
        time -= cpuWait;
        foreach (var (reason, ms) in s.OffCpuByReason.Where(r => r.Key is not (OffCpuReason.Preempted or OffCpuReason.Ready)))
            causes.Add(new Cause("off CPU: " + (reason == OffCpuReason.Suspension ? WireNames.Of(reason) : Plain(WireNames.Of(reason))), ms, 0, reason == OffCpuReason.Lock ? LockSites(runs) : [], []));
        // Without a kernel session lock waits are not in any off-CPU reason: the runtime's contention events measure them.
        if (s.OffCpuMs is null && s.ContentionMs > 0)
        {
            causes.Add(new Cause("lock contention", s.ContentionMs, 0, LockSites(runs), []));
            time += s.ContentionMs;
        }
        var all = causes.Select(c => c with { Share = time > 0 ? c.Ms / time : 0 }).OrderByDescending(c => c.Ms).ThenBy(c => c.Name, StringComparer.Ordinal).ToList();
        var ranked = all.Where(c => c.Share >= MinShare).Take(MaxCauses).ToList();
        var also = new List<string>();
        if (s.Exceptions > 0) also.Add(Exceptions(s, runs));
        if (cpuWait > 0 && cpuWait >= MinShare * (time + cpuWait))
            also.Add($"waited {Fmt.Ms(cpuWait)} ms per call for a CPU (preempted or runnable): the machine's load, not counted above");
        // The process's other threads inside the windows (kernel session): said beside the causes, which stay shares of
        // the worker's time, when they cost as much as the smallest cause named. The tracer's threads are the tracing
        // cost's (its column), not the serializer's.
        var others = new List<(ThreadRole Role, double Ms)>();
        foreach (var (role, ms) in s.OtherThreadsByRole)
            if (ms > 0 && role != ThreadRole.Tracer) others.Add((role, ms));
        var otherMs = 0.0;
        var split = new List<string>(others.Count);
        foreach (var (role, ms) in Collections.LargestFirst.Of(others, r => r.Ms))
        {
            otherMs += ms;
            split.Add($"{WireNames.Of(role)} {Fmt.Ms(ms)} ms");
        }
        if (otherMs > 0 && otherMs >= Math.Max(MinShare * time, ranked.Count == MaxCauses ? ranked[^1].Ms : 0))
            also.Add($"other threads worked {Fmt.Ms(otherMs)} ms per call beside the worker ({string.Join(", ", split)}): not counted above");
        var findings = analysis.Findings.Where(f => f.Serializer == s.Serializer && f.Operation == s.Operation && (f.Objects is null || f.Objects == s.Objects)).ToList();
        return new Verdict(s, fastest?.Serializer, fastest?.MeanDurationMs ?? 0, onCpu, off + (s.OffCpuMs is null ? s.ContentionMs : 0), ranked, also, findings)
        {
            OtherThreadsMs = s.OtherThreadsCpuMs ?? 0,
            CpuWaitMs = cpuWait,
            AllCauses = all,
        };
    }

    /// <summary>The cause a stack tag adds to: the serializer's code as one, the harness and untagged code apart, others by their tag.</summary>
    private static string? CauseName(string tag, string serializer)
    {
        // The harness's tags (priority -10) also claim code no other tag names that runs under them: an app's own code.
        if (tag.StartsWith("Test ", StringComparison.Ordinal)) return Untagged;
        var group = StackTagGroups.GroupOf(tag);
        if (group == StackTagGroups.SerializerCode) return serializer + " code";
        if (tag == StackTagGroups.Other) return Untagged;
        return group;
    }

    /// <summary>
    /// The serializer's own code by the namespace of the method doing the work ("YamlDotNet.Core code"): a
    /// serializer is several components (a scanner, an emitter, a type inspector), and the one that costs most is the
    /// answer, not "its code". Samples with no code frame stay the serializer's code.
    /// </summary>
    private static IEnumerable<Cause> ByNamespace(IReadOnlyDictionary<TagSite, double> sites, IReadOnlyList<string> tags, double ms, string serializer)
    {
        // Loops, not LINQ over (site, ms) pairs: that ran as tier-0 JIT code in the ReadyToRun build.
        var name = serializer + " code";
        var total = 0.0;
        // By the name shown: code without a namespace (dynamic methods) and the serializer's own namespace are one cause.
        var names = new List<string>();
        var sitesOf = new Dictionary<string, Dictionary<TagSite, double>>();
        var msOf = new Dictionary<string, double>();
        foreach (var (site, siteMs) in sites)
        {
            if (!tags.Contains(site.Tag)) continue;
            total += siteMs;
            var shown = site.Caller is { } c && NamespaceOf(c.Method) is { Length: > 0 } n ? n + " code" : name;
            if (!sitesOf.TryGetValue(shown, out var mine))
            {
                names.Add(shown);
                sitesOf[shown] = mine = [];
            }
            mine[site] = siteMs;
            msOf[shown] = msOf.GetValueOrDefault(shown) + siteMs;
        }
        if (total <= 0)
        {
            yield return new Cause(name, ms, 0, [], tags, OwnCode: true);
            yield break;
        }
        foreach (var shown in names)
        {
            var share = msOf[shown] / total;
            yield return new Cause(shown, ms * share, 0, Sites(sitesOf[shown], tags, ms * share), tags, OwnCode: true);
        }
    }

    /// <summary>"YamlDotNet.Core" of "YamlDotNet.Core.Emitter.AnalyzeScalar" (generic arguments dropped; a nested type's is its outer type's); "" for a method without one.</summary>
    private static string NamespaceOf(string method)
    {
        var text = WithoutGenerics(method);
        var plus = text.IndexOf('+');
        if (plus > 0) text = text[..plus] + ".x";
        var dot = text.LastIndexOf('.');
        var typeDot = dot <= 0 ? -1 : text.LastIndexOf('.', dot - 1);
        return typeDot <= 0 ? "" : text[..typeDot];
    }

    /// <summary>
    /// A group with the parts of it that matter: "Reflection: Custom attributes", "Native runtime: Memory clearing,
    /// Runtime (libcoreclr, stripped)" (the second-level tags of at least a tenth of the group's time, largest first).
    /// </summary>
    private static string Named(string group, IEnumerable<KeyValuePair<string, double>> tags)
    {
        // Loops, not LINQ over (tag, ms) pairs: that ran as tier-0 JIT code in the ReadyToRun build.
        var keys = new List<string>();
        var values = new List<double>();
        var total = 0.0;
        foreach (var (tag, ms) in tags)
        {
            total += ms;
            keys.Add(tag);
            values.Add(ms);
        }
        // The largest first, ties in their order (a stable sort), each part once, at most two.
        var parts = new List<string>(2);
        var taken = new bool[keys.Count];
        while (parts.Count < 2)
        {
            var best = -1;
            for (var i = 0; i < keys.Count; i++)
                if (!taken[i] && keys[i].Contains('\\') && values[i] >= 0.1 * total && (best < 0 || values[i] > values[best])) best = i;
            if (best < 0) break;
            taken[best] = true;
            var part = keys[best][(keys[best].LastIndexOf('\\') + 1)..];
            if (!parts.Contains(part)) parts.Add(part);
        }
        return parts.Count == 0 ? group : $"{group}: {string.Join(", ", parts)}";
    }

    private const string Untagged = "untagged code";
    private const string MemoryClearing = StackTags.SerializerStackTagsGenerator.MemoryClearingTag;

    /// <summary>
    /// Code no stack tag names (an app's own library, a serializer the tags do not know; the harness's low-priority tags
    /// included) by the module of its innermost code frame: "KnownAnswer code", not "Other". Samples with no code frame
    /// stay "untagged code".
    /// </summary>
    private static IEnumerable<Cause> ByLibrary(IReadOnlyDictionary<TagSite, double> sites, IReadOnlyList<string> tags, double ms)
    {
        var other = sites.Where(x => tags.Contains(x.Key.Tag)).ToList();
        var total = other.Sum(x => x.Value);
        if (total <= 0)
        {
            yield return new Cause(Untagged, ms, 0, [], tags);
            yield break;
        }
        foreach (var library in other.GroupBy(x => x.Key.Caller?.Module))
        {
            var share = library.Sum(x => x.Value) / total;
            var name = library.Key is { Length: > 0 } module && module != StackFrame.Unresolved ? module + " code" : Untagged;
            var mine = library.ToDictionary(x => x.Key, x => x.Value);
            yield return new Cause(name, ms * share, 0, Sites(mine, tags, ms * share), tags);
        }
    }

    /// <summary>The largest sites of these tags, "API from Caller" with ms per call each (the cause's ms split as the sites are).</summary>
    private static IReadOnlyList<string> Sites(IReadOnlyDictionary<TagSite, double> sites, IReadOnlyList<string> tags, double causeMs)
    {
        // A sample in the code's own body is the caller's alone; a call into an API is told by who made it and who used that.
        // Loops over objects, not LINQ over tuples of sites: those are JIT code in the ReadyToRun build.
        var sums = new Collections.KeyedSums<SiteKey>();
        foreach (var (site, ms) in sites)
            if (tags.Contains(site.Tag)) sums.Add(new SiteKey(site.Api, site.Caller, site.Api is null ? null : site.Outer), ms);
        // The largest first, ties in first-seen order; the total summed in that order.
        var ordered = Collections.LargestFirst.Of(sums.Keys, key => sums[key]);
        var total = 0.0;
        foreach (var key in ordered) total += sums[key];
        if (total <= 0) return [];
        var shown = new List<string>(3);
        foreach (var key in ordered)
        {
            // A site whose share prints as 0.000 ms says nothing: it is left out.
            if ((key.Caller is null && key.Api is null) || Fmt.Ms(sums[key] / total * causeMs) is var ms && ms == Fmt.Ms(0)) continue;
            shown.Add($"{SiteText(key.Api, key.Caller, key.Outer)} {ms} ms");
            if (shown.Count == 3) break;
        }
        return shown;
    }

    /// <summary>Whose time a site is, without its tag: the API, its caller and (for an API call) the caller's caller.</summary>
    private sealed record SiteKey(CodeSite? Api, CodeSite? Caller, CodeSite? Outer);

    private static string SiteText(CodeSite? api, CodeSite? caller, CodeSite? outer) => (api, caller) switch
    {
        ({ } a, { } c) when outer is { } o => $"{Short(a.Method)} from {Short(c.Method)} (called by {Short(o.Method)})",
        ({ } a, { } c) => $"{Short(a.Method)} from {Short(c.Method)}",
        (null, { } c) => $"in {Short(c.Method)}",
        ({ } a, null) => Short(a.Method),
        _ => "?",
    };

    /// <summary>
    /// A method's name without its generic arguments ("[...]" or "<...>", nested ones too). A "<" that follows no
    /// name is the compiler's ("<>c", "<Run>b__4") and stays.
    /// </summary>
    private static string WithoutGenerics(string method)
    {
        var plain = new System.Text.StringBuilder(method.Length);
        var brackets = new Stack<bool>(); // per open bracket: whether it holds generic arguments (dropped)
        var dropped = 0;
        for (var i = 0; i < method.Length; i++)
        {
            var ch = method[i];
            if (ch is '[' or '<')
            {
                var generic = ch == '[' || dropped > 0 || (i > 0 && (char.IsLetterOrDigit(method[i - 1]) || method[i - 1] is '`' or '_'));
                brackets.Push(generic);
                if (generic) { dropped++; continue; }
            }
            else if (ch is ']' or '>' && brackets.TryPop(out var generic) && generic) { dropped--; continue; }
            if (dropped == 0) plain.Append(ch);
        }
        return plain.ToString();
    }

    /// <summary>A type as <see cref="Short"/> names it, its array ranks kept: "System.Int64[]", not "System.Int64".</summary>
    internal static string ShortType(string type)
    {
        var end = type.Length;
        while (end >= 2 && type[end - 1] == ']' && type.LastIndexOf('[', end - 1) is var open and >= 0 && type.AsSpan(open + 1, end - open - 2).Trim(',').IsEmpty)
            end = open;
        return Short(type[..end]) + type[end..];
    }

    /// <summary>"Type.Method" of "Namespace.Outer+Type.Method[generic args]" (generic arguments and outer types dropped).</summary>
    internal static string Short(string method)
    {
        var text = WithoutGenerics(method);
        var dot = text.LastIndexOf('.');
        if (dot <= 0) return text;
        var typeDot = text.LastIndexOf('.', dot - 1);
        var typeAndMethod = typeDot < 0 ? text : text[(typeDot + 1)..];
        // A nested type reads by its own name: "ReflectionPropertyDescriptor.GetCustomAttribute", not its outer types'.
        var plus = typeAndMethod.LastIndexOf('+');
        if (plus < 0) return typeAndMethod;
        var nested = typeAndMethod[(plus + 1)..];
        if (!nested.StartsWith('<')) return nested;
        // A closure's class is the compiler's: the type that holds it names it ("ReflectionSerializer.<Run>b__4").
        var outer = typeAndMethod[..plus];
        outer = outer[(outer.LastIndexOf('+') + 1)..];
        return nested.IndexOf('.') is var at and >= 0 ? outer + nested[at..] : outer + "." + nested;
    }

    /// <summary>"2.40 MB allocated per call: String 41%, Byte[] 20%" ("1.6 KB" under 10 KB) from the allocation ticks of the case's runs.</summary>
    private static string Allocations(CaseSummary s, List<RunAnalysis> runs)
    {
        // Under 10 KB in KB: in MB it read 0.00.
        var text = (s.AllocatedBytes >= 10 * 1024 ? $"{Fmt.Mb((long)s.AllocatedBytes)} MB" : $"{Fmt.Num(s.AllocatedBytes / 1024)} KB") + " allocated per call";
        // Loops, not LINQ over (string, long) tuples: JIT code in the ReadyToRun build, once per case.
        var bytesOf = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var run in runs)
            foreach (var (type, bytes) in run.Counters.AllocatedBytesByType)
                checked { System.Runtime.InteropServices.CollectionsMarshal.GetValueRefOrAddDefault(bytesOf, type, out _) += bytes; }
        var types = bytesOf.Keys.ToArray();
        // The most bytes first, then by name: one order, whatever the sort.
        Array.Sort(types, (a, b) => bytesOf[b].CompareTo(bytesOf[a]) is var byBytes and not 0 ? byBytes : string.CompareOrdinal(a, b));
        var total = 0.0;
        foreach (var type in types) total += bytesOf[type];
        if (total <= 0) return text;
        return text + ": " + string.Join(", ", types.Take(2).Select(t => $"{ShortType(t)} {Fmt.Pct(bytesOf[t] / total)}"));
    }

    private static IReadOnlyList<string> LockSites(List<RunAnalysis> runs)
    {
        var top = runs.SelectMany(r => r.Counters.ContentionMsBySite).GroupBy(x => x.Key.WithoutTag()).Select(g => (Site: g.Key, Ms: g.Sum(x => x.Value))).OrderByDescending(x => x.Ms).FirstOrDefault();
        return top.Ms > 0 ? [$"waiting in {Short(top.Site.Method)}"] : [];
    }

    /// <summary>A wire name without its parenthesis: "runtime suspension, not GC (EventPipe sampler, tiering)" reads "runtime suspension, not GC".</summary>
    private static string Plain(string name) => name.IndexOf(" (", StringComparison.Ordinal) is var paren and > 0 ? name[..paren] : name;

    private static string Exceptions(CaseSummary s, List<RunAnalysis> runs)
    {
        var top = runs.SelectMany(r => r.Counters.ExceptionsBySite).GroupBy(x => x.Key.WithoutTag()).Select(g => (Site: g.Key, Count: g.Sum(x => x.Value))).OrderByDescending(x => x.Count).FirstOrDefault();
        return $"exceptions: {Fmt.Num(s.Exceptions)} per call" + (top.Count > 0 ? $", mostly {Short(top.Site.Type)} thrown in {Short(top.Site.Thrower.Method)}" : "");
    }

    public const string Title = "Why each case takes its time (causes in ms per call; shares of the worker's CPU and off-CPU time)";

    /// <summary>The verdicts first in a report: a title, then <see cref="Lines"/>.</summary>
    /// <param name="warmups">Warm-up runs in the trace: said when no run was measured (a recording cut during its warm-up).</param>
    /// <param name="width">As <see cref="Lines"/>: the terminal's 120 columns, or 0 for every line whole (--tables all, whose tables are wider anyway).</param>
    public static LinesPart Part(IReadOnlyList<Verdict> verdicts, int warmups = 0, int width = PlainText.Width) =>
        new([Title, .. verdicts.Count > 0 ? Lines(verdicts, width)
            : warmups > 0 ? [$"  no measured runs: the trace holds only {Fmt.Int(warmups)} warm-up run(s); was the recording cut during the warm-up?"]
            : ["  no measured runs"]], EscapeMarkdown: true);

    /// <summary>Verdicts the terminal shows in full (<see cref="Shown"/>).</summary>
    public const int MaxShown = 8;

    /// <summary>
    /// The verdicts that matter most, in the report's order: all of them when there are at most <see cref="MaxShown"/>;
    /// otherwise the slowest case of each operation and N, then the cases of warning findings in the findings' order,
    /// up to <see cref="MaxShown"/> (docs/analyzer.md#the-terminals-output).
    /// </summary>
    public static IReadOnlyList<Verdict> Shown(IReadOnlyList<Verdict> verdicts, IReadOnlyList<Finding> findings)
    {
        if (verdicts.Count <= MaxShown) return verdicts;
        var slowest = verdicts.GroupBy(v => (v.Case.Operation, v.Case.Objects)).Select(g => g.MaxBy(v => v.Case.MeanDurationMs)!);
        var warned = findings.Where(f => f.Severity == FindingSeverity.Warning).SelectMany(f => verdicts.Where(v => v.Findings.Contains(f)));
        var shown = slowest.Concat(warned).Distinct(ReferenceEqualityComparer.Instance).Take(MaxShown).ToHashSet(ReferenceEqualityComparer.Instance);
        return [.. verdicts.Where(shown.Contains)];
    }

    /// <summary>The terminal's verdicts: the <see cref="Shown"/> ones (head and causes when some are left out), then a line that says how many more and where they are.</summary>
    public static LinesPart CompactPart(IReadOnlyList<Verdict> verdicts, IReadOnlyList<Finding> findings, int warmups = 0)
    {
        var shown = Shown(verdicts, findings);
        var rest = verdicts.Count - shown.Count;
        var part = rest > 0 ? new LinesPart([ShownTitle, .. Lines(shown, causesOnly: true)], EscapeMarkdown: true) : Part(verdicts, warmups);
        return part with { Lines = [.. part.Lines, (rest > 0 ? $"{rest} more verdicts, every" : "Every") + " table and note in full: --tables all, --html F, --format json"] };
    }

    public const string ShownTitle = "Why the slowest cases and those with a warning take their time (causes in ms per call; shares of the worker's time)";

    /// <summary>JSON `verdicts`: per case its time, the fastest of its operation and N, the causes with their tags, the findings' kinds.</summary>
    public static JsonArray Json(IReadOnlyList<Verdict> verdicts) =>
        new([.. verdicts.Select(v => (JsonNode)new JsonObject
        {
            ["serializer"] = v.Case.Serializer,
            ["operation"] = v.Case.Operation,
            ["objects"] = v.Case.Objects == 0 ? null : v.Case.Objects,
            ["meanMs"] = v.Case.MeanDurationMs,
            ["fastest"] = v.Fastest,
            ["fastestMs"] = v.Fastest is null ? null : v.FastestMs,
            ["onCpuMs"] = v.OnCpuMs,
            ["offCpuMs"] = v.OffCpuMs,
            ["cpuWaitMs"] = v.CpuWaitMs,
            ["otherThreadsMs"] = v.OtherThreadsMs,
            ["causes"] = new JsonArray([.. v.Causes.Select(c => (JsonNode)new JsonObject
            {
                ["name"] = c.Name,
                ["ms"] = Math.Round(c.Ms, 4),
                ["share"] = Math.Round(c.Share, 4),
                ["detail"] = new JsonArray([.. c.Detail.Select(d => (JsonNode)JsonValue.Create(d)!)]),
                ["tags"] = new JsonArray([.. c.Tags.Select(t => (JsonNode)JsonValue.Create(t)!)]),
                ["ownCode"] = c.OwnCode,
            })]),
            ["also"] = new JsonArray([.. v.Also.Select(a => (JsonNode)JsonValue.Create(a)!)]),
            ["findings"] = new JsonArray([.. v.Findings.Select(f => f.Kind).Distinct().Select(k => (JsonNode)JsonValue.Create(k)!)]),
        })]);

    /// <summary>The verdicts as lines, each at most <see cref="PlainText.Width"/> characters: a head line per case, its causes, what else, the findings.</summary>
    /// <param name="width">Cut each line to this many characters (a terminal's); 0 keeps every line and detail whole (the HTML page).</param>
    /// <param name="causesOnly">The head and the causes only (the terminal's): the table has the exceptions, the findings list the findings.</param>
    public static IReadOnlyList<string> Lines(IReadOnlyList<Verdict> verdicts, int width = PlainText.Width, bool causesOnly = false)
    {
        var lines = new List<string>();
        string Cut(string line) => width > 0 ? Fit(line, width) : line;
        foreach (var v in verdicts)
        {
            lines.Add(Cut(Head(v)));
            for (var i = 0; i < v.Causes.Count; i++)
            {
                var c = v.Causes[i];
                var head = $"  {i + 1}. {c.Name} {Fmt.Ms(c.Ms)} ms ({Fmt.Pct(c.Share)})";
                lines.Add(width > 0 ? Fit(head, c.Detail, width) : c.Detail.Count == 0 ? head : head + ": " + string.Join("; ", c.Detail));
            }
            if (causesOnly) continue;
            foreach (var a in v.Also) lines.Add(Cut("  also " + a));
            if (v.Findings.Count > 0) lines.Add(Cut("  findings: " + string.Join(", ", v.Findings.Select(f => f.Kind).Distinct())));
        }
        return lines;
    }

    private static string Head(Verdict v)
    {
        var s = v.Case;
        var name = $"{s.Serializer} {s.Operation}{Fmt.NSuffix(s.Objects)}: {Fmt.Ms(s.MeanDurationMs)} ms/op";
        var against = v.Fastest is null || v.FastestMs <= 0 ? ""
            : v.Fastest == s.Serializer ? ", the fastest"
            : $", {Ratio(s.MeanDurationMs / v.FastestMs)} fastest ({v.Fastest} {Fmt.Ms(v.FastestMs)})";
        var off = Fmt.Ms(v.OffCpuMs) is var o && o != Fmt.Ms(0) ? $" + off-CPU {o}" : "";
        var time = v.TimeMs <= 0 ? "; no CPU source" : $"; CPU {Fmt.Ms(v.OnCpuMs)}{off} ms/call";
        return name + against + time;
    }

    private static string Ratio(double x) => x >= 10 ? $"{x:F0}x" : $"{x:F1}x";

    /// <summary>A long line as lines of at most <paramref name="width"/> characters, broken at spaces; the rest indented by <paramref name="indent"/>.</summary>
    internal static IEnumerable<string> Wrap(string text, string indent, int width = PlainText.Width)
    {
        var line = "";
        foreach (var word in text.Split(' '))
        {
            if (line.Length > 0 && line.Length + 1 + word.Length > width)
            {
                yield return line;
                line = indent + word;
            }
            else line = line.Length == 0 ? word : line + " " + word;
        }
        if (line.Length > 0) yield return line;
    }

    /// <summary>A line cut to <paramref name="width"/> characters, ending in "..." when cut.</summary>
    internal static string Fit(string line, int width = PlainText.Width) => line.Length <= width ? line : line[..(width - 3)] + "...";

    /// <summary>
    /// The head, then ": " and as many of the details as fit in <paramref name="width"/>, each without its caller's
    /// caller (mostly the benchmark's own loop; --tables all keeps it). The first is always there: when it does not
    /// fit whole, its caller and figure alone ("from X.Write 0.003 ms": the cause's name already says which API); only
    /// then is it cut.
    /// </summary>
    internal static string Fit(string head, IReadOnlyList<string> details, int width = PlainText.Width)
    {
        if (details.Count == 0) return Fit(head, width);
        var first = WithoutOuter(details[0]);
        if (head.Length + 2 + first.Length > width && first.IndexOf(" from ", StringComparison.Ordinal) is var from and > 0)
            first = first[(from + 1)..];
        var line = head + ": " + first;
        foreach (var detail in details.Skip(1))
        {
            var d = WithoutOuter(detail);
            if (line.Length + 2 + d.Length > width) break;
            line += "; " + d;
        }
        return Fit(line, width);
    }

    /// <summary>A site's text without " (called by X)" (<see cref="SiteText"/>).</summary>
    private static string WithoutOuter(string detail)
    {
        var at = detail.IndexOf(" (called by ", StringComparison.Ordinal);
        if (at < 0) return detail;
        var depth = 0;
        for (var i = at + 1; i < detail.Length; i++)
        {
            if (detail[i] == '(') depth++;
            else if (detail[i] == ')' && --depth == 0) return detail[..at] + detail[(i + 1)..];
        }
        return detail;
    }
}
