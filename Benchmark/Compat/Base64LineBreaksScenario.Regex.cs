using System.Reflection;
using System.Text.RegularExpressions;

namespace EtwSerializerProfiler.Benchmark.Scenarios;

/// <summary>
/// .NET Framework has no regex source generator: the [GeneratedRegex] method is implemented with a compiled Regex built
/// from the attribute's own pattern and options, so the pattern is written once, in the shared file.
/// </summary>
public sealed partial class Base64LineBreaksScenario
{
    private static readonly Lazy<Regex> s_payloadElement = new(() =>
    {
        var attribute = typeof(Base64LineBreaksScenario).GetMethod(nameof(PayloadElement), BindingFlags.NonPublic | BindingFlags.Static)!
            .GetCustomAttribute<GeneratedRegexAttribute>()!;
        return new Regex(attribute.Pattern, attribute.Options | RegexOptions.Compiled);
    });

    private static partial Regex PayloadElement() => s_payloadElement.Value;
}
