using Xunit.Abstractions;
using Xunit.Sdk;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>The suite's slow set-ups, in the order <see cref="Prefetch"/> makes them in the background.</summary>
public enum SetUp
{
    NativeEsp = 1,
    PackedTool,
    Net8Benchmark,
}

/// <summary>
/// A test class (or a collection definition) that needs one of the slow set-ups: its collection runs after every other
/// one, in the set-ups' order, so the background has made it by then instead of the test waiting for it.
/// </summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class AfterSetUpAttribute : Attribute
{
    public AfterSetUpAttribute(SetUp setUp) => Rank = (int)setUp;

    /// <summary>After every set-up: the background is done, so tests that time work run on the quietest machine the run has.</summary>
    public AfterSetUpAttribute() => Rank = Enum.GetValues<SetUp>().Cast<int>().Max() + 1;

    /// <summary>The collection's place: 0 for the collections without the attribute, then the set-ups' order.</summary>
    public int Rank { get; }
}

/// <summary>
/// xunit's default order (by the collections' unique ids), with the collections marked <see cref="AfterSetUpAttribute"/>
/// moved to the end. A collection of one class is named "Test collection for CLASS" (xunit 2).
/// </summary>
public sealed class SetUpOrder : ITestCollectionOrderer
{
    public const string TypeName = "EtwSerializerProfiler.Tests.Support.SetUpOrder";

    public IEnumerable<ITestCollection> OrderTestCollections(IEnumerable<ITestCollection> testCollections) =>
        testCollections.OrderBy(Rank).ThenBy(c => c.UniqueID);

    internal static int Rank(ITestCollection collection)
    {
        const string Prefix = "Test collection for ";
        var type = collection.CollectionDefinition?.ToRuntimeType()
            ?? (collection.DisplayName.StartsWith(Prefix, StringComparison.Ordinal) ? typeof(SetUpOrder).Assembly.GetType(collection.DisplayName[Prefix.Length..]) : null);
        return type?.GetCustomAttributes(typeof(AfterSetUpAttribute), inherit: false).Cast<AfterSetUpAttribute>().FirstOrDefault() is { } after ? after.Rank : 0;
    }
}
