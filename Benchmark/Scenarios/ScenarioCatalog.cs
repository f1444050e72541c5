using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Scenarios;

/// <summary>The --scenario values. Scenarios that need a serializer of their own (ObjectGraph) are serializers instead.</summary>
public static class ScenarioCatalog
{
    public static IReadOnlyList<InputScenario> All { get; } =
    [
        new Base64LineBreaksScenario("base64-linebreaks", "\r\n",
            "Book.Payload base64 wrapped with CRLF every 73 chars (seed 003's shape; XML text serializers only)"),
        new Base64LineBreaksScenario("base64-indented-linebreaks", "\r\n  ",
            "as base64-linebreaks, each line indented by two spaces (still throws FormatException per chunk on .NET 10)"),
    ];

    /// <summary>Null for no scenario; an unknown name is an error that lists the valid ones.</summary>
    public static InputScenario? Parse(string? name) =>
        name is null or "" or "none"
            ? null
            : All.FirstOrDefault(s => s.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
              ?? throw new UsageException($"--scenario must be one of none|{string.Join("|", All.Select(s => s.Name))}, got '{name}'");
}
