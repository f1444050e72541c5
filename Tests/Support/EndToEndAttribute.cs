using Xunit.Abstractions;
using Xunit.Sdk;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// Marks a test class that records real traces or starts processes: trait Category=EndToEnd. The fast unit tests are
/// everything else (`scripts/test-fast.sh`, or `dotnet test --filter "Category!=EndToEnd"`) and run in seconds.
/// <see cref="FastRun"/> makes a forgotten mark fail in the fast run instead of slowing it down unnoticed.
/// </summary>
[TraitDiscoverer("EtwSerializerProfiler.Tests.Support.EndToEndTraitDiscoverer", "EtwSerializerProfiler.Tests")]
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method, AllowMultiple = false)]
public sealed class EndToEndAttribute : Attribute, ITraitAttribute
{
    public const string Category = "Category";
    public const string Value = "EndToEnd";
}

/// <summary>xunit's hook that turns <see cref="EndToEndAttribute"/> into the trait the test filter sees.</summary>
public sealed class EndToEndTraitDiscoverer : ITraitDiscoverer
{
    public IEnumerable<KeyValuePair<string, string>> GetTraits(IAttributeInfo traitAttribute) =>
        [new(EndToEndAttribute.Category, EndToEndAttribute.Value)];
}
