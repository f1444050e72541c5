using System.Text.Json;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Profiles;

/// <summary>Loads Profiles/profiles.json (copied next to the tool). A profile is data: add one there, not here.</summary>
public static class ProfileCatalog
{
    public const string FileName = "profiles.json";

    public static string DefaultPath => Path.Combine(AppContext.BaseDirectory, "Profiles", FileName);

    public static IReadOnlyList<TraceProfile> Load(string? path = null)
    {
        path ??= DefaultPath;
        if (!File.Exists(path)) throw new UsageException($"profiles file not found: {path}");
        try
        {
            var file = JsonSerializer.Deserialize(File.ReadAllText(path), ProfileJsonContext.Default.ProfileFile);
            var profiles = file?.Profiles ?? [];
            if (profiles.Count == 0) throw new BadInputException($"{path}: no profiles defined");
            foreach (var p in profiles)
                foreach (var provider in p.Providers)
                {
                    _ = provider.KeywordMask; // validate keyword names at load, not mid-recording
                    if (provider.StacklessKeywords.Except(provider.Keywords, StringComparer.OrdinalIgnoreCase).FirstOrDefault() is { } stray)
                        throw new BadInputException($"{path}: profile '{p.Name}', provider {provider.Name}: stackless keyword '{stray}' is not one of its keywords");
                    _ = provider.StacklessMask;
                    if ((provider.StackKeywords ?? []).Except(provider.Keywords, StringComparer.OrdinalIgnoreCase).FirstOrDefault() is { } unknown)
                        throw new BadInputException($"{path}: profile '{p.Name}', provider {provider.Name}: stack keyword '{unknown}' is not one of its keywords");
                    if ((provider.StackMask & provider.StacklessMask) != 0)
                        throw new BadInputException($"{path}: profile '{p.Name}', provider {provider.Name}: a keyword cannot be both a stack keyword and a stackless one");
                }
            return profiles;
        }
        catch (JsonException ex)
        {
            throw new BadInputException($"{path}({ex.LineNumber + 1}): {ex.Message}", ex);
        }
    }

    public static TraceProfile Get(string name, string? path = null)
    {
        var profiles = Load(path);
        return profiles.FirstOrDefault(p => p.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
            ?? throw new UsageException($"unknown profile '{name}'; available: {string.Join(", ", profiles.Select(p => p.Name))}");
    }
}
