namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>Every concrete <see cref="Serializer"/> in this assembly, in a stable order (by name).</summary>
public static class SerializerCatalog
{
    private static readonly Lazy<IReadOnlyList<Serializer>> s_all = new(Discover);

#if NET
    [System.Diagnostics.CodeAnalysis.UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "Never reached in the native esp: the verbs that list serializers become the managed esp first (Cli/Commands/ManagedEsp).")]
    [System.Diagnostics.CodeAnalysis.UnconditionalSuppressMessage("Trimming", "IL2067", Justification = "Never reached in the native esp: the verbs that list serializers become the managed esp first (Cli/Commands/ManagedEsp).")]
    [System.Diagnostics.CodeAnalysis.UnconditionalSuppressMessage("Trimming", "IL2070", Justification = "Never reached in the native esp: the verbs that list serializers become the managed esp first (Cli/Commands/ManagedEsp).")]
#endif
    private static IReadOnlyList<Serializer> Discover() =>
        typeof(Serializer).Assembly.GetTypes()
            .Where(t => t.IsSubclassOf(typeof(Serializer)) && !t.IsAbstract && t.GetConstructor(Type.EmptyTypes) is not null)
            .Select(t => (Serializer)Activator.CreateInstance(t)!)
            .OrderBy(s => s.Name, StringComparer.OrdinalIgnoreCase)
            .ToList();

    public static IReadOnlyList<Serializer> All => s_all.Value;

    /// <summary>Case-insensitive selection; an unknown name is an error that lists the valid ones.</summary>
    public static IReadOnlyList<Serializer> Select(IReadOnlyList<string> names)
    {
        if (names.Count == 0) return All;
        var selected = new List<Serializer>();
        foreach (var name in names)
        {
            var match = All.FirstOrDefault(s => s.Name.Equals(name, StringComparison.OrdinalIgnoreCase))
                ?? throw new Common.UsageException($"unknown serializer '{name}'; valid: {string.Join(", ", All.Select(s => s.Name))}");
            if (!selected.Contains(match)) selected.Add(match);
        }
        return selected;
    }
}
