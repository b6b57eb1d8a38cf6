// memcity's instanced city: one draw for the ground, every district slab and every building.
// Each instance is a box given by its center, size, color and flags; the unit cube is shared.

struct View {
    clip_from_world: mat4x4<f32>,
    // xyz: camera position; w: unused.
    camera: vec4<f32>,
};

@group(0) @binding(0) var<uniform> view: View;

struct Vertex {
    @location(0) position: vec3<f32>,   // unit cube, -0.5..0.5
    @location(1) normal: vec3<f32>,
    @location(2) center: vec4<f32>,     // xyz: box center; w: flags (bits: 1 selected, 2 hovered, 4 marked)
    @location(3) size: vec4<f32>,       // xyz: box size
    @location(4) color: vec4<f32>,      // linear rgb + opacity
};

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) height01: f32,
    @location(3) @interpolate(flat) flags: f32,
    @location(4) world: vec3<f32>,
    // Position in the unit cube (for the selection's outline).
    @location(5) local: vec3<f32>,
    @location(6) @interpolate(flat) size: vec3<f32>,
};

@vertex
fn vertex(v: Vertex) -> Varyings {
    let world = v.center.xyz + v.position * v.size.xyz;
    var out: Varyings;
    out.clip = view.clip_from_world * vec4<f32>(world, 1.0);
    out.color = v.color;
    out.normal = v.normal;
    out.height01 = v.position.y + 0.5;
    out.flags = v.center.w;
    out.world = world;
    out.local = v.position;
    out.size = v.size.xyz;
    return out;
}

const SUN: vec3<f32> = vec3<f32>(0.42, 0.82, 0.38);
// The selection keeps its own color (its growth stays readable) inside a bright outline.
const OUTLINE: vec3<f32> = vec3<f32>(1.0, 0.93, 0.25);
// Marked buildings (what a picked data structure holds) get a cyan outline of their own.
const MARKED: vec3<f32> = vec3<f32>(0.2, 0.9, 1.0);

@fragment
fn fragment(in: Varyings) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    // Sun + sky light, with a cheap ambient-occlusion darkening towards each box's foot.
    let diffuse = max(dot(n, normalize(SUN)), 0.0);
    let sky = 0.5 + 0.5 * n.y;
    let occlusion = mix(0.55, 1.0, clamp(in.height01 * 1.6, 0.0, 1.0));
    var rgb = in.color.rgb * (0.30 * sky + 0.75 * diffuse) * occlusion;
    var alpha = in.color.a;
    // Distance to the box's faces in world units per axis, and the size of a pixel there
    // (derivatives only outside branches): the selection's outline is at least 2.5 pixels wide.
    let d = (vec3<f32>(0.5) - abs(in.local)) * in.size;
    let pixel = max(fwidth(d.x), max(fwidth(d.y), fwidth(d.z)));
    let selected = (u32(in.flags + 0.5) & 1u) != 0u;
    let hovered = (u32(in.flags + 0.5) & 2u) != 0u;
    let marked = (u32(in.flags + 0.5) & 4u) != 0u;
    // On a face one inset is ~0; the edge is where the smaller of the other two is small.
    let edge = max(min(d.x, d.y), min(max(d.x, d.y), d.z));
    let width = max(2.5 * pixel, min(0.05 * min(in.size.x, in.size.z), 12.0));
    if selected {
        if edge < width {
            rgb = OUTLINE;
        } else {
            rgb = rgb * 1.15;
        }
        alpha = max(alpha, 0.9);
    } else if marked {
        if edge < width {
            rgb = MARKED;
        } else if hovered {
            rgb = rgb * 1.35 + vec3<f32>(0.05);
        }
        alpha = max(alpha, 0.9);
    } else if hovered {
        rgb = rgb * 1.35 + vec3<f32>(0.05);
    }
    return vec4<f32>(rgb, alpha);
}
