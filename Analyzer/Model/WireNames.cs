using System.Collections.Concurrent;
using System.Reflection;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>The one mapping from an enum member to its <see cref="WireNameAttribute"/>, used by every output format.</summary>
internal static class WireNames
{
    private static readonly ConcurrentDictionary<Enum, string> s_names = new();

    public static string Of<T>(T value) where T : struct, Enum => s_names.GetOrAdd(value, static v =>
        v.GetType().GetField(v.ToString(), BindingFlags.Public | BindingFlags.Static)?.GetCustomAttribute<WireNameAttribute>()?.Name
        ?? throw new InvalidOperationException($"{v.GetType().Name}.{v} has no [WireName]"));

    /// <summary>Every member's wire name, in declaration order (tests: each member has one, no two alike).</summary>
    public static IReadOnlyList<string> All<T>() where T : struct, Enum => [.. Enum.GetValues<T>().Select(Of)];
}
