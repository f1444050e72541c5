using EtwSerializerProfiler.Analyzer.Kernel;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Where code throws, by address: the return address of each sampled throw's thrower (its first managed frame that is
/// not the runtime's dispatch), from the exception windows' stacks. A CPU sample in native code whose first managed
/// frame returns to one of them was taken in the throw helper (IL_Throw and the native dispatch below it): exception
/// work, named so even where no throw event spans it (the stackless session stops at a high throw rate:
/// docs/analyzer.md#native-runtime). Another native call from the same code (an allocation) returns elsewhere. Code
/// compiled again after the last window (a tier-up) has addresses no window saw: there, native calls from a method
/// that threw in a window count as its throws (an allocation of that code counts too: the rule's known excess).
/// </summary>
internal sealed class ThrowCallSites
{
    private readonly ManagedCodeMap _code;
    /// <summary>Per code version (its start address), the throw call sites seen in it.</summary>
    private readonly Dictionary<ulong, HashSet<ulong>> _byVersion;
    /// <summary>The throwers' names: every code version of theirs.</summary>
    private readonly HashSet<string> _throwers;

    private ThrowCallSites(ManagedCodeMap code, Dictionary<ulong, HashSet<ulong>> byVersion, HashSet<string> throwers) =>
        (_code, _byVersion, _throwers) = (code, byVersion, throwers);

    /// <summary>Call sites seen, over every code version.</summary>
    public int Count => _byVersion.Values.Sum(s => s.Count);

    /// <summary>Whether native code that returns to <paramref name="returnAddress"/> is a throw's work.</summary>
    public bool Contains(ulong returnAddress)
    {
        if (returnAddress == 0 || _code.Find(returnAddress) is not { } method) return false;
        return _byVersion.TryGetValue(method.Start, out var sites) ? sites.Contains(returnAddress) : _throwers.Contains(method.Name);
    }

    /// <summary>The runtime's own throw and dispatch code (System.Runtime.EH, ExceptionServices): never the thrower.</summary>
    public static bool IsThrowMachinery(string method) =>
        method.StartsWith("System.Runtime.ExceptionServices", StringComparison.Ordinal) || method.StartsWith("System.Runtime.EH.", StringComparison.Ordinal);

    /// <param name="throwStacks">The sampled throws' return addresses, leaf first.</param>
    /// <returns>Null without sampled throws, or when none of their throwers is named by the trace's code.</returns>
    public static ThrowCallSites? From(IEnumerable<ulong[]>? throwStacks, ManagedCodeMap code)
    {
        if (throwStacks is null) return null;
        var byVersion = new Dictionary<ulong, HashSet<ulong>>();
        var throwers = new HashSet<string>(StringComparer.Ordinal);
        foreach (var leafFirst in throwStacks)
            foreach (var address in leafFirst)
            {
                if (code.Find(address) is not { } method || IsThrowMachinery(method.Name)) continue;
                if (!byVersion.TryGetValue(method.Start, out var sites)) byVersion[method.Start] = sites = [];
                sites.Add(address);
                throwers.Add(method.Name);
                break;
            }
        return byVersion.Count == 0 ? null : new ThrowCallSites(code, byVersion, throwers);
    }
}
