using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Robustness;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace EtwSerializerProfiler.Tests.Scripts;

/// <summary>
/// The collections that need a slow set-up run after every other one, in the order the background makes them; the
/// timing collection runs after all of them.
/// </summary>
public sealed class SetUpOrderTests
{
    private static readonly TestAssembly Assembly = new(Reflector.Wrap(typeof(SetUpOrderTests).Assembly));

    private static TestCollection OfClass(Type type) => new(Assembly, null, "Test collection for " + type.FullName);

    private static TestCollection Named(Type definition, string name) => new(Assembly, Reflector.Wrap(definition), name);

    [Fact]
    public void The_collections_that_need_a_set_up_run_last_in_its_order()
    {
        ITestCollection[] collections =
        [
            OfClass(typeof(RuntimeDiffTests)),
            Named(typeof(PackagingCollection), PackagingCollection.Name),
            OfClass(typeof(SetUpOrderTests)),
            OfClass(typeof(NativeBuildTests)),
            Named(typeof(RecordedBenchmarkCollection), RecordedBenchmarkCollection.Name),
            Named(typeof(TimingCollection), TimingCollection.Name),
            Named(typeof(DamagedInputCollection), DamagedInputCollection.Name),
        ];
        var ranks = new SetUpOrder().OrderTestCollections(collections).Select(SetUpOrder.Rank).ToList();
        Assert.Equal([0, 0, (int)SetUp.NativeEsp, (int)SetUp.NativeEsp, (int)SetUp.PackedTool, (int)SetUp.Net8Benchmark, (int)SetUp.Net8Benchmark + 1], ranks);
    }
}
