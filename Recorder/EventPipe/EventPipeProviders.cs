using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>The EventPipe rendering of a profile: ETW-only filters and the kernel part do not apply.</summary>
public static class EventPipeProviders
{
    /// <param name="kernelSamplesCpu">A kernel session samples the CPU: providers the profile marks as replaced by it are left out.</param>
    /// <param name="sampler">--eventpipe-samples: forces EventPipe's SampleProfiler on or off; null = the profile's rule.</param>
    public static IReadOnlyList<EventPipeProvider> For(TraceProfile profile, bool kernelSamplesCpu = false, bool? sampler = null) =>
        profile.Providers
            .Where(p => !IsSampler(p) || (sampler ?? (profile.CpuSamplingMs > 0 && !(kernelSamplesCpu && p.ReplacedByKernelSampling))))
            .Where(p => IsSampler(p) || !(kernelSamplesCpu && p.ReplacedByKernelSampling))
            .Select(p => new EventPipeProvider(p.Name, p.Level, p.KeywordMask & ~p.StacklessMask))
            .Where(p => p.Keywords != 0)
            .ToList();

    /// <summary>
    /// The profile's stackless keywords (<see cref="ProviderSpec.StacklessKeywords"/>), one provider each, for the
    /// second session (<see cref="ExceptionSessions"/>); empty when the profile has none. <see cref="For"/> leaves them out.
    /// </summary>
    public static IReadOnlyList<EventPipeProvider> Stackless(TraceProfile profile) =>
        profile.Providers
            .Where(p => p.StacklessMask != 0)
            .Select(p => new EventPipeProvider(p.Name, p.StacklessLevel, p.StacklessMask))
            .ToList();

    /// <summary>The lowest <see cref="ProviderSpec.StacklessMaxMBPerSecond"/> of the stackless providers, in bytes a second; null: no limit.</summary>
    public static double? StacklessMaxBytesPerSecond(TraceProfile profile) =>
        profile.Providers.Where(p => p.StacklessMask != 0 && p.StacklessMaxMBPerSecond is > 0)
            .Select(p => p.StacklessMaxMBPerSecond!.Value * 1048576).DefaultIfEmpty().Min() is var min and > 0 ? min : null;

    /// <summary>
    /// The main session's providers with the stackless ones folded back in (keywords or-ed, the higher level): for a
    /// runtime that cannot start a session without stacks (.NET 8 refuses it), as before stackless keywords existed.
    /// </summary>
    public static IReadOnlyList<EventPipeProvider> WithStackless(IReadOnlyList<EventPipeProvider> main, IReadOnlyList<EventPipeProvider> stackless) =>
        [.. main.Select(p => stackless.FirstOrDefault(x => x.Name == p.Name) is { } x
                ? new EventPipeProvider(p.Name, (System.Diagnostics.Tracing.EventLevel)Math.Max((int)p.EventLevel, (int)x.EventLevel), p.Keywords | x.Keywords, p.Arguments)
                : p),
            .. stackless.Where(x => main.All(p => p.Name != x.Name))];

    /// <summary>
    /// Whether the main session <paramref name="main"/> records without stacks: the profile says which keywords need
    /// one (<see cref="ProviderSpec.StackKeywords"/>, on some provider), and it holds no EventPipe sampler (the kernel
    /// session samples the CPU, or nothing does).
    /// </summary>
    public static bool MainWithoutStacks(TraceProfile profile, IReadOnlyList<EventPipeProvider> main) =>
        profile.Providers.Any(p => p.StackKeywords is not null) && !main.Any(p => IsSampler(p.Name));

    /// <summary>
    /// The profile's stack keywords (<see cref="ProviderSpec.StackKeywords"/>) for a session with stacks of their own,
    /// beside a main session without them (<see cref="MainWithoutStacks"/>); empty when there are none.
    /// </summary>
    public static IReadOnlyList<EventPipeProvider> StackSide(TraceProfile profile, IReadOnlyList<EventPipeProvider> main) =>
        !MainWithoutStacks(profile, main) ? [] :
        [.. profile.Providers
            .Select(p => (Spec: p, Main: main.FirstOrDefault(m => m.Name == p.Name)))
            .Where(x => x.Main is not null && (x.Main.Keywords & x.Spec.StackMask) != 0)
            .Select(x => new EventPipeProvider(x.Spec.Name, x.Main!.EventLevel, x.Main.Keywords & x.Spec.StackMask))];

    /// <summary>The main session's providers without the keywords <paramref name="side"/> records (a provider left with none goes).</summary>
    public static IReadOnlyList<EventPipeProvider> Without(IReadOnlyList<EventPipeProvider> main, IReadOnlyList<EventPipeProvider> side) =>
        [.. main.Select(p => side.FirstOrDefault(x => x.Name == p.Name) is { } x ? new EventPipeProvider(p.Name, p.EventLevel, p.Keywords & ~x.Keywords, p.Arguments) : p)
            .Where(p => p.Keywords != 0)];

    private static bool IsSampler(string name) => name.Equals(KeywordNames.SampleProfilerProvider, StringComparison.OrdinalIgnoreCase);

    private static bool IsSampler(ProviderSpec p) => p.Name.Equals(KeywordNames.SampleProfilerProvider, StringComparison.OrdinalIgnoreCase);
}
