using System.Text.RegularExpressions;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Tests.Analyzer.StackTags;

/// <summary>
/// The owner rule on hand-made stacks (leaf first, names as TraceEvent and the kernel session write them), with the
/// answer each must get: code called through reflection is not reflection; reflection the code calls is, under the
/// family of the API it called; native and kernel work inside reflection is reflection; users' tags still combine.
/// </summary>
public sealed class ReflectionOwnerTests
{
    private const string CoreLib = "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/System.Private.CoreLib.dll";
    private const string Coreclr = "libcoreclr.so";
    private const string Bench = "SerializerBenchmark.dll";
    private const string User = "/home/u/MyBenchmarks.dll";
    private const string Yaml = "YamlDotNet.dll";
    private const string Serializers = "EtwSerializerProfiler.Benchmark.Serializers.";

    private static readonly string s_builtIn = SerializerStackTagsGenerator.Generate(
    [
        new("YamlDotNet", Serializers + "YamlDotNetSerializer", "YamlDotNet", "YamlDotNet"),
        new("Reflection", Serializers + "ReflectionSerializer"),
        new("DataContract", Serializers + "DataContractTextSerializer", "System.Private.DataContractSerialization", "System.Runtime.Serialization"),
    ]);

    private static readonly StackTagMatcher s_tags = new(StackTagFile.Parse(s_builtIn, "built-in"));

    /// <summary>BenchmarkDotNet's engine calling the benchmark method through MethodInfo.Invoke, at the root of every stack.</summary>
    private static readonly (string, string)[] s_bdnRoot =
    [
        ("?", "InvokeStub_Benchmarks.Compute(class System.Object,class System.Object,native int*)"),
        (CoreLib, "System.Reflection.MethodBaseInvoker.InvokeWithNoArgs(class System.Object,value class System.Reflection.BindingFlags)"),
        (CoreLib, "System.Reflection.RuntimeMethodInfo.Invoke(class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Object[],class System.Globalization.CultureInfo)"),
        ("BenchmarkDotNet.dll", "BenchmarkDotNet.Engines.Engine.RunIteration(value class BenchmarkDotNet.Engines.IterationData)"),
    ];

    /// <summary>The same with dynamic code off: the interpreted invoke, and the runtime's native call between it and the method.</summary>
    private static readonly (string, string)[] s_bdnRootInterpreted =
    [
        (Coreclr, "CallDescrWorkerInternal"),
        (Coreclr, "?"),
        (CoreLib, "System.RuntimeMethodHandle.InvokeMethod(class System.Object,void**,value class System.Signature,bool)"),
        (CoreLib, "System.Reflection.MethodBaseInvoker.InterpretedInvoke_Method(class System.Object,native int*)"),
        (CoreLib, "System.Reflection.RuntimeMethodInfo.Invoke(class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Object[],class System.Globalization.CultureInfo)"),
        ("BenchmarkDotNet.dll", "BenchmarkDotNet.Engines.Engine.RunIteration(value class BenchmarkDotNet.Engines.IterationData)"),
    ];

    private static string Classify(StackTagMatcher tags, params (string Module, string Method)[][] partsLeafFirst) =>
        tags.Classify([.. partsLeafFirst.SelectMany(p => p).Select(f => new StackFrame(f.Module, f.Method))]);

    private static string Classify(params (string Module, string Method)[][] partsLeafFirst) => Classify(s_tags, partsLeafFirst);

    private static (string, string)[] Frames(params (string, string)[] frames) => frames;

    private static readonly (string, string)[] s_arithmetic = Frames(
        (User, "MyBenchmarks.Work.Xorshift(int64)"),
        (User, "MyBenchmarks.Benchmarks.Compute()"));

    [Fact]
    public void Work_called_through_invoke_at_the_root_is_not_reflection()
    {
        Assert.Equal(StackTagMatcher.Other, Classify(s_arithmetic, s_bdnRoot));
        // The runtime's native call above the method only called it: its stripped-runtime tag does not take the
        // method's time (in WPA it would: the deepest tagged frame; docs/analyzer.md "Native runtime").
        Assert.Equal(StackTagMatcher.Other, Classify(s_arithmetic, s_bdnRootInterpreted));
        // The benchmark's own serializer under the same root keeps its tag.
        Assert.Equal(@"Deserialize\YamlDotNet", Classify(Frames(
            (Yaml, "YamlDotNet.Core.Parser.MoveNext()"),
            (Bench, Serializers + "YamlDotNetSerializer.Deserialize(class System.Type,class System.IO.Stream)")), s_bdnRoot));
    }

    [Fact]
    public void A_method_of_the_core_library_invoked_by_reflection_is_the_invoked_method()
    {
        // A serializer setting List<T>.Capacity through PropertyInfo.SetValue: the setter's time is the setter's.
        Assert.Equal(StackTagMatcher.Other, Classify(Frames(
            (CoreLib, "System.Collections.Generic.List`1[System.__Canon].set_Capacity(int32)")), s_bdnRootInterpreted));
        // The invoke machinery itself is reflection.
        Assert.Equal(@"Reflection\Interpreted invoke", Classify(s_bdnRootInterpreted.Skip(1).ToArray()));
    }

    [Fact]
    public void Reflection_under_the_code_is_reflection_of_the_family_called_even_under_an_invoke_at_the_root()
    {
        var setValue = Frames(
            (CoreLib, "System.RuntimeType.get_IsValueType()"),
            (CoreLib, "System.RuntimeFieldHandle.SetValue(class System.Reflection.RtFieldInfo,class System.Object,class System.Object,class System.RuntimeType,class System.RuntimeType)"),
            (CoreLib, "System.Reflection.RtFieldInfo.SetValue(class System.Object,class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Globalization.CultureInfo)"),
            (Bench, Serializers + "ReflectionSerializer.Deserialize(class System.Type,class System.IO.Stream)"));
        Assert.Equal(@"Reflection\FieldInfo.SetValue", Classify(setValue));
        // The invoke at the root neither takes the sample (it is not the owner) nor renames it.
        Assert.Equal(@"Reflection\FieldInfo.SetValue", Classify(setValue, s_bdnRootInterpreted));
        Assert.Equal(@"Reflection\Type queries", Classify(setValue[..1], setValue[3..], s_bdnRoot));
    }

    [Fact]
    public void Custom_attribute_lookups_are_reflection_whatever_they_run_inside_but_an_attributes_constructor_is_not()
    {
        var lookup = Frames(
            (CoreLib, "System.Reflection.CustomAttribute.AddCustomAttributes(class System.RuntimeType.ListBuilder`1<class System.Object>&,class System.Reflection.RuntimeModule,int32,class System.RuntimeType,bool,class System.RuntimeType.ListBuilder`1<class System.Object>)"),
            (CoreLib, "System.Reflection.CustomAttribute.GetCustomAttributes(class System.Reflection.RuntimePropertyInfo,class System.RuntimeType)"),
            (CoreLib, "System.Reflection.RuntimePropertyInfo.GetCustomAttributes(class System.Type,bool)"),
            (Yaml, "YamlDotNet.Serialization.TypeInspectors.ReadablePropertiesTypeInspector.GetProperties(class System.Type,class System.Object)"),
            (Bench, Serializers + "YamlDotNetSerializer.Deserialize(class System.Type,class System.IO.Stream)"));
        Assert.Equal(@"Reflection\Custom attributes", Classify(lookup));
        // Reflection's own collections and type queries inside the lookup are the lookup's.
        Assert.Equal(@"Reflection\Custom attributes", Classify(Frames(
            (CoreLib, "System.Collections.Generic.List`1[System.__Canon].AddWithResize(!0)"),
            (CoreLib, "System.RuntimeType.get_IsGenericType()")), lookup));
        Assert.Equal(@"Reflection\Custom attributes", Classify(Frames(
            (CoreLib, "System.Attribute.GetCustomAttributes(class System.Reflection.MemberInfo,class System.Type,bool)")), lookup[3..]));
        // The attribute's constructor is code the lookup called: its caller's tag, not reflection.
        Assert.Equal(@"Serializer library\YamlDotNet", Classify(Frames(
            ("MyModel.dll", "MyModel.DisplayAttribute..ctor(class System.String)"),
            (CoreLib, "System.Reflection.CustomAttribute._CreateCaObject(class System.Reflection.RuntimeModule,class System.RuntimeType,value class System.RuntimeMethodHandleInternal,unsigned int8**,unsigned int8*,int32*)")), lookup[..^1]));
    }

    [Fact]
    public void Emit_is_code_generation_and_the_code_it_made_is_code()
    {
        var dataContract = Frames(
            ("System.Private.DataContractSerialization.dll", "System.Runtime.Serialization.DataContracts.ClassDataContract.ReadXmlValue(class System.Runtime.Serialization.XmlReaderDelegator,class System.Runtime.Serialization.XmlObjectSerializerReadContext)"),
            (Bench, Serializers + "DataContractTextSerializer.Deserialize(class System.Type,class System.IO.Stream)"));
        Assert.Equal(@"Reflection\Emit (code generation)", Classify(Frames(
            (CoreLib, "System.Reflection.Emit.DynamicILGenerator.Emit(value class System.Reflection.Emit.OpCode,class System.Reflection.MethodInfo)"),
            ("System.Private.DataContractSerialization.dll", "System.Runtime.Serialization.CodeGenerator.Call(class System.Reflection.MethodInfo)")), dataContract));
        // The dynamic method the serializer emitted, running: its caller's tag.
        Assert.Equal(@"Deserialize\DataContract", Classify(Frames(
            ("?", "DynamicClass.ReadBookFromXml(class System.Runtime.Serialization.XmlReaderDelegator,class System.Runtime.Serialization.XmlObjectSerializerReadContext)")), dataContract));
    }

    [Fact]
    public void Activator_is_activator_and_the_constructor_it_runs_is_not()
    {
        var create = Frames(
            (CoreLib, "System.RuntimeType.CreateInstanceDefaultCtor(bool,bool)"),
            (CoreLib, "System.Activator.CreateInstance(class System.Type,bool,bool)"),
            (Bench, Serializers + "ReflectionSerializer.Deserialize(class System.Type,class System.IO.Stream)"));
        Assert.Equal(@"Activator\CreateInstance", Classify(Frames((Coreclr, "?"), (Coreclr, "?")), create));
        Assert.Equal(@"Deserialize\Reflection", Classify(Frames(
            (Bench, "EtwSerializerProfiler.Benchmark.Data.Book..ctor()")), create));
    }

    [Fact]
    public void Native_and_kernel_work_under_a_reflection_frame_is_reflection_and_GC_stays_GC()
    {
        var setValue = Frames(
            (CoreLib, "System.Reflection.RtFieldInfo.SetValue(class System.Object,class System.Object,value class System.Reflection.BindingFlags,class System.Reflection.Binder,class System.Globalization.CultureInfo)"),
            (Bench, Serializers + "ReflectionSerializer.Deserialize(class System.Type,class System.IO.Stream)"));
        Assert.Equal(@"Reflection\FieldInfo.SetValue", Classify(Frames((Coreclr, "?"), ("libc.so.6", "__memset_avx2_unaligned_erms")), setValue));
        Assert.Equal(@"Reflection\FieldInfo.SetValue", Classify(Frames(("kernel", "clear_page_erms"), ("kernel", "asm_exc_page_fault"), (Coreclr, "?")), setValue));
        // The same native work under the serializer's own code is the runtime's and the kernel's, as before.
        Assert.Equal(@"Native runtime\Runtime (libcoreclr, stripped)", Classify(Frames((Coreclr, "?")), setValue[1..]));
        Assert.Equal(@"Kernel\Page faults", Classify(Frames(("kernel", "clear_page_erms"), ("kernel", "asm_exc_page_fault")), setValue[1..]));
        // GC ranks above reflection: a collection triggered inside reflection is GC (the columns are shares outside GC).
        Assert.Equal("GC", Classify(Frames((Coreclr, "WKS::gc_heap::garbage_collect")), setValue));
    }

    [Fact]
    public void Priorities_of_the_builtin_reflection_tags_are_not_what_keeps_invoked_code_out()
    {
        foreach (var priority in new[] { -100, 0, 100 })
        {
            // Every reflection family at one priority: the families then only differ by depth.
            var xml = Regex.Replace(s_builtIn, @"Priority=""(7|8|9|10|11|12)""", $"Priority=\"{priority}\"");
            var tags = new StackTagMatcher(StackTagFile.Parse(xml, "flattened"));
            Assert.Equal(StackTagMatcher.Other, Classify(tags, s_arithmetic, s_bdnRoot));
            Assert.Equal(StackTagMatcher.Other, Classify(tags, s_arithmetic, s_bdnRootInterpreted));
            Assert.Equal(@"Deserialize\Reflection", Classify(tags, Frames((Bench, "EtwSerializerProfiler.Benchmark.Data.Book..ctor()")), Frames(
                (CoreLib, "System.Activator.CreateInstance(class System.Type,bool,bool)"),
                (Bench, Serializers + "ReflectionSerializer.Deserialize(class System.Type,class System.IO.Stream)"))));
        }
    }

    [Fact]
    public void Users_tags_combine_they_win_by_priority_refine_reflection_and_are_held_to_the_owner_rule()
    {
        const string Mine = """
            <Tag Name="">
              <Tag Name="Mine\Compute" Priority="50"><Entrypoint Module="MyBenchmarks.dll" Method="MyBenchmarks.Benchmarks::Compute*"/></Tag>
              <Tag Name="Mine\Reader"><Entrypoint Module="YamlDotNet.dll" Method="YamlDotNet.Serialization.TypeInspectors.*"/></Tag>
              <Tag Name="Reflection\Member lookup\GetProperties" Priority="15"><Entrypoint Module="System.Private.CoreLib.dll" Method="System.RuntimeType::GetProperties*"/></Tag>
              <Tag Name="Reflection\Invoke\Harness" Priority="60"><Entrypoint Module="BenchmarkDotNet.dll" Method="BenchmarkDotNet.Engines.*"/></Tag>
            </Tag>
            """;
        var tags = new StackTagMatcher(StackTagFile.Combine([StackTagFile.Parse(s_builtIn, "built-in"), StackTagFile.Parse(Mine, "mine")]));
        // A tag of higher priority takes the stack, as in WPA (here over the arithmetic the invoke calls).
        Assert.Equal(@"Mine\Compute", Classify(tags, s_arithmetic, s_bdnRoot));
        // A reflection tag of the user's is a reflection tag: above the owner it cannot claim invoked code, whatever its priority.
        Assert.Equal(StackTagMatcher.Other, Classify(tags, s_arithmetic[..1], s_bdnRoot));
        var getProperties = Frames(
            (CoreLib, "System.RuntimeType+RuntimeTypeCache.GetPropertyList(value class System.RuntimeType+MemberListType,class System.String)"),
            (CoreLib, "System.RuntimeType.GetProperties(value class System.Reflection.BindingFlags)"),
            (Yaml, "YamlDotNet.Serialization.TypeInspectors.ReadablePropertiesTypeInspector.GetProperties(class System.Type,class System.Object)"),
            (Bench, Serializers + "YamlDotNetSerializer.Deserialize(class System.Type,class System.IO.Stream)"));
        // Refining a family: the user's sub-tag, at a higher priority, wins inside the reflection the code called.
        Assert.Equal(@"Reflection\Member lookup\GetProperties", Classify(tags, getProperties));
        Assert.Equal(@"Reflection\Member lookup", Classify(getProperties));
        // The user's tag on the caller (priority 0) does not take the reflection below it, and has the rest.
        Assert.Equal(@"Reflection\Member lookup", Classify(tags, getProperties[..1], getProperties[2..]));
        Assert.Equal(@"Mine\Reader", Classify(tags, getProperties[2..]));
    }
}
